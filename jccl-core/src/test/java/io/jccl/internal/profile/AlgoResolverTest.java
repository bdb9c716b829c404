package io.jccl.internal.profile;

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
import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The resolver names exactly the work the planner builds (so logs, JFR and counters never drift from it). */
class AlgoResolverTest {
    private static final Map<Class<? extends Work>, AlgoKind> KINDS = Map.of(OneShotAllReduce.class, AlgoKind.ONE_SHOT,
            io.jccl.internal.algorithm.TwoShotAllReduce.class, AlgoKind.TWO_SHOT,
            RegisteredAllReduce.class, AlgoKind.REGISTERED, RingCollective.class, AlgoKind.RING, P2pBatch.class,
            AlgoKind.P2P, io.jccl.internal.algorithm.TreeAllReduce.class, AlgoKind.TREE);

    @Test
    void resolverAgreesWithThePlannerAcrossHosts() {
        java.util.Set<AlgoKind> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        ThreadRanks.runOnHosts(new int[] {0, 0, 1, 1}, ThreadRanks.testConfig(), comm -> {
            AlgoResolver r = Probes.of(comm).resolver();
            MemorySegment plain = Arena.ofAuto().allocate(64L << 20, 64);
            for (long count : new long[] {1, 256, 4096, 65_536, 1_000_000, 8_000_000}) {
                long bytes = count * 4;
                Work w = r.planner().allReduce(1, plain, plain, count, DataType.FLOAT32, RedOp.SUM, false);
                AlgoKind k = r.resolve(Collective.ALL_REDUCE, count, bytes, plain, plain, RedOp.SUM);
                assertThat(k).as("allReduce of %d floats", count).isEqualTo(KINDS.get(w.getClass()));
                assertThat(r.channels(Collective.ALL_REDUCE, k, bytes)).isEqualTo(w.nChannels());
                seen.add(k);
            }
        });
        assertThat(seen).containsExactlyInAnyOrder(AlgoKind.TREE, AlgoKind.RING);
    }

    @Test
    void resolverAgreesWithThePlanner() {
        ThreadRanks.run(2, comm -> {
            AlgoResolver r = Probes.of(comm).resolver();
            Planner planner = r.planner();
            MemorySegment plain = Arena.ofAuto().allocate(64L << 20, 64);
            MemorySegment registered = comm.allocate(4L << 20);
            for (long count : new long[] {1, 16, 16_384, 16_385, 131_072, 1_000_000, 8_000_000}) {
                for (MemorySegment buf : new MemorySegment[] {plain, registered}) {
                    long bytes = count * 4;
                    if (bytes > buf.byteSize()) {
                        continue;
                    }
                    Work w = planner.allReduce(1, buf, buf, count, DataType.FLOAT32, RedOp.SUM, false);
                    AlgoKind k = r.resolve(Collective.ALL_REDUCE, count, bytes, buf, buf, RedOp.SUM);
                    assertThat(k).as("allReduce of %d floats (%s)", count, buf == plain ? "plain" : "registered")
                            .isEqualTo(KINDS.get(w.getClass()));
                    assertThat(r.channels(Collective.ALL_REDUCE, k, bytes)).isEqualTo(w.nChannels());
                }
            }
            for (Collective c : List.of(Collective.ALL_GATHER, Collective.REDUCE_SCATTER, Collective.BROADCAST,
                    Collective.REDUCE, Collective.SEND, Collective.ALL_TO_ALL, Collective.GATHER, Collective.BARRIER)) {
                long count = c == Collective.BARRIER ? 1 : 300_000;
                CollArgs a = new CollArgs(c, 1, plain, plain, count, DataType.FLOAT32, RedOp.SUM, 0,
                        1 - comm.rank());
                List<Work> works = planner.plan(List.of(a));
                AlgoKind k = r.resolve(c, count, a.bytes(), plain, plain, RedOp.SUM);
                assertThat(works).as("%s", c).hasSize(1);
                assertThat(k).as("%s", c).isEqualTo(KINDS.get(works.get(0).getClass()));
                assertThat(r.channels(c, k, a.bytes())).as("%s channels", c).isEqualTo(works.get(0).nChannels());
            }
            assertThat(r.resolve(Collective.ALL_GATHER, 0, 0, plain, plain, null)).isEqualTo(AlgoKind.NONE);
        });
    }
}
