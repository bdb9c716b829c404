package io.jccl.internal.comm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.internal.algorithm.CollArgs;
import io.jccl.internal.algorithm.OneShotAllReduce;
import io.jccl.internal.algorithm.P2pBatch;
import io.jccl.internal.algorithm.RegisteredAllReduce;
import io.jccl.internal.algorithm.RingCollective;
import io.jccl.internal.algorithm.Work;
import io.jccl.internal.enqueue.Planner;
import io.jccl.internal.tuning.AlgoKind;
import io.jccl.internal.tuning.HostSelector;
import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call's selection, made once when it begins, names exactly the work the planner builds from it (so logs, JFR,
 * counters and explain never drift from what runs), and the selections a communicator makes span the algorithms its
 * shape allows.
 */
class SelectionTest {
    private static final Map<Class<? extends Work>, AlgoKind> KINDS = Map.of(OneShotAllReduce.class, AlgoKind.ONE_SHOT,
            io.jccl.internal.algorithm.TwoShotAllReduce.class, AlgoKind.TWO_SHOT,
            RegisteredAllReduce.class, AlgoKind.REGISTERED, RingCollective.class, AlgoKind.RING, P2pBatch.class,
            AlgoKind.P2P, io.jccl.internal.algorithm.TreeAllReduce.class, AlgoKind.TREE);

    /** The runtime of a host communicator (read reflectively; the API does not expose it). */
    static CommRuntime runtime(io.jccl.Communicator comm) {
        try {
            java.lang.reflect.Field f = comm.getClass().getDeclaredField("rt");
            f.setAccessible(true);
            return (CommRuntime) f.get(comm);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    static Planner planner(CommRuntime rt) {
        try {
            java.lang.reflect.Field f = CommRuntime.class.getDeclaredField("planner");
            f.setAccessible(true);
            return (Planner) f.get(rt);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void theWorkIsTheSelectionAcrossHosts() {
        java.util.Set<AlgoKind> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        ThreadRanks.runOnHosts(new int[] {0, 0, 1, 1}, ThreadRanks.testConfig(), comm -> {
            CommRuntime rt = runtime(comm);
            MemorySegment plain = Arena.ofAuto().allocate(64L << 20, 64);
            for (long count : new long[] {1, 256, 4096, 65_536, 1_000_000, 8_000_000}) {
                long c = rt.choose(Collective.ALL_REDUCE, count, DataType.FLOAT32, RedOp.SUM, plain, plain);
                Work w = planner(rt).allReduce(1, plain, plain, count, DataType.FLOAT32, RedOp.SUM, c, false);
                AlgoKind k = HostSelector.kindOf(c);
                assertThat(k).as("allReduce of %d floats", count).isEqualTo(KINDS.get(w.getClass()));
                assertThat(HostSelector.channelsOf(c)).isEqualTo(w.nChannels());
                assertThat(rt.explain(Collective.ALL_REDUCE, count * 4)).contains("runs: AllReduce " + count * 4
                        + " bytes -> " + k + "/");
                seen.add(k);
            }
        });
        assertThat(seen).containsExactlyInAnyOrder(AlgoKind.TREE, AlgoKind.RING);
    }

    @Test
    void theWorkIsTheSelection() {
        java.util.Set<AlgoKind> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        ThreadRanks.run(2, comm -> {
            CommRuntime rt = runtime(comm);
            Planner planner = planner(rt);
            MemorySegment plain = Arena.ofAuto().allocate(64L << 20, 64);
            MemorySegment registered = comm.allocate(4L << 20);
            for (long count : new long[] {1, 16, 16_384, 16_385, 131_072, 1_000_000, 8_000_000}) {
                for (MemorySegment buf : new MemorySegment[] {plain, registered}) {
                    long bytes = count * 4;
                    if (bytes > buf.byteSize()) {
                        continue;
                    }
                    long c = rt.choose(Collective.ALL_REDUCE, count, DataType.FLOAT32, RedOp.SUM, buf, buf);
                    Work w = planner.allReduce(1, buf, buf, count, DataType.FLOAT32, RedOp.SUM, c, false);
                    AlgoKind k = HostSelector.kindOf(c);
                    assertThat(k).as("allReduce of %d floats (%s)", count, buf == plain ? "plain" : "registered")
                            .isEqualTo(KINDS.get(w.getClass()));
                    assertThat(HostSelector.channelsOf(c)).isEqualTo(w.nChannels());
                    seen.add(k);
                }
            }
            for (Collective c : List.of(Collective.ALL_GATHER, Collective.REDUCE_SCATTER, Collective.BROADCAST,
                    Collective.REDUCE, Collective.SEND, Collective.ALL_TO_ALL, Collective.GATHER, Collective.BARRIER)) {
                long count = c == Collective.BARRIER ? 1 : 300_000;
                long choice = rt.choose(c, count, DataType.FLOAT32, RedOp.SUM, plain, plain);
                CollArgs a = new CollArgs(c, 1, plain, plain, count, DataType.FLOAT32, RedOp.SUM, 0,
                        1 - comm.rank(), choice);
                List<Work> works = planner.plan(List.of(a));
                AlgoKind k = HostSelector.kindOf(choice);
                assertThat(works).as("%s", c).hasSize(1);
                assertThat(k).as("%s", c).isEqualTo(KINDS.get(works.get(0).getClass()));
                assertThat(HostSelector.channelsOf(choice)).as("%s channels", c).isEqualTo(works.get(0).nChannels());
            }
            long none = rt.choose(Collective.ALL_GATHER, 0, DataType.FLOAT32, null, plain, plain);
            assertThat(HostSelector.kindOf(none)).isEqualTo(AlgoKind.NONE);
        });
        assertThat(seen).contains(AlgoKind.ONE_SHOT, AlgoKind.REGISTERED, AlgoKind.RING);
    }
}
