package io.jccl.cuda;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.RedOp;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link GpuCommunicator#split}: the ranks of an initAll clique, each on its own thread, split into new GPU
 * communicators (by address between ranks of one process), which run collectives on their own and outlive nothing
 * of the parent's.
 */
@Tag("gpu")
class GpuSplitGpuTest {
    private static final int COUNT = 1000;

    @Test
    @Timeout(120)
    void ranksSplitIntoWorkingCommunicatorsAndTheParentStillWorks() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus());
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            // one color, keys reversed: parent rank 1 becomes rank 0
            List<GpuCommunicator> swapped = onEachRank(pool, r -> comms.get(r).split(7, -r));
            assertThat(swapped).extracting(GpuCommunicator::rank).containsExactly(1, 0);
            assertThat(swapped).extracting(GpuCommunicator::size).containsExactly(2, 2);
            assertThat(onEachRank(pool, r -> allReduce(swapped.get(r), r + 1))).containsOnly(3f);
            assertThat(onEachRank(pool, r -> broadcastFromRoot0(swapped.get(r), r + 1))).containsOnly(2f);
            // the ranks share the process: the same kernels as initAll's (the pull kernels read the peers' buffers)
            long big = (8L << 20) / 4;
            String plan = swapped.get(0).algorithmFor(io.jccl.Collective.ALL_REDUCE, big, DataType.FLOAT32, RedOp.SUM);
            assertThat(plan.split(" ")[0]).isEqualTo(comms.get(0).algorithmFor(io.jccl.Collective.ALL_REDUCE, big,
                    DataType.FLOAT32, RedOp.SUM).split(" ")[0]);
            assertThat(onEachRank(pool, r -> run(swapped.get(r), big, r + 1, (g, b, s) -> g.allReduce(b, b, big,
                    DataType.FLOAT32, RedOp.SUM, s)))).containsOnly(3f);

            // rank 1 sits out: rank 0 gets a communicator of its own
            List<GpuCommunicator> alone = onEachRank(pool, r -> comms.get(r).split(r == 0 ? 3 : Communicator.SPLIT_NOCOLOR, 0));
            assertThat(alone.get(1)).isNull();
            assertThat(alone.get(0).size()).isEqualTo(1);
            assertThat(allReduce(alone.get(0), 5)).isEqualTo(5f);
            alone.get(0).close();

            onEachRank(pool, r -> {
                swapped.get(r).close();
                return null;
            });
            assertThat(onEachRank(pool, r -> allReduce(comms.get(r), 10 * (r + 1)))).containsOnly(30f);
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /** splitAll: the same from one thread, as NCCL's users split inside a group. */
    @Test
    @Timeout(120)
    void splitAllSplitsEveryRankFromOneThread() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus());
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> GpuCommunicator.splitAll(comms, new int[] {0},
                    new int[] {0, 1})).isInstanceOf(io.jccl.JcclException.class).hasMessageContaining("1 colors, 2 keys");
            List<GpuCommunicator> subs = GpuCommunicator.splitAll(comms, new int[] {4, 4}, new int[] {1, 0});
            assertThat(subs).extracting(GpuCommunicator::rank).containsExactly(1, 0);
            assertThat(onEachRank(pool, r -> allReduce(subs.get(r), 2 * (r + 1)))).containsOnly(6f);
            subs.forEach(GpuCommunicator::close);
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /**
     * Runs {@code body} for ranks 0 and 1 at once, one thread each (split, windows: calls collective over the host
     * communicators), and returns the results.
     */
    static <T> List<T> onEachRank(ExecutorService pool, IntFunction<T> body) throws Exception {
        return onEachRank(pool, 2, body);
    }

    /** As {@link #onEachRank(ExecutorService, IntFunction)} for ranks 0 to {@code n - 1}. */
    static <T> List<T> onEachRank(ExecutorService pool, int n, IntFunction<T> body) throws Exception {
        List<Future<T>> fs = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            int rank = r;
            fs.add(pool.submit(() -> body.apply(rank)));
        }
        List<T> out = new ArrayList<>();
        for (Future<T> f : fs) {
            out.add(f.get());
        }
        return out;
    }

    /** allReduce(sum) of COUNT floats of {@code value} on this rank; returns the result's first element after
     *  checking that every element is the same. */
    static float allReduce(GpuCommunicator g, float value) {
        return run(g, COUNT, value, (c, b, s) -> c.allReduce(b, b, COUNT, DataType.FLOAT32, RedOp.SUM, s));
    }

    private static float broadcastFromRoot0(GpuCommunicator g, float value) {
        return run(g, COUNT, value, (c, b, s) -> c.broadcast(b, b, COUNT, DataType.FLOAT32, 0, s));
    }

    private interface Call {
        void issue(GpuCommunicator g, DeviceBuffer b, CudaStream s);
    }

    private static float run(GpuCommunicator g, long count, float value, Call call) {
        float[] host = new float[(int) count];
        java.util.Arrays.fill(host, value);
        try (DeviceBuffer b = DeviceBuffer.allocate(g.device(), 4L * count);
             CudaStream s = CudaStream.create(g.device())) {
            b.copyFrom(MemorySegment.ofArray(host));
            call.issue(g, b, s);
            s.synchronize();
            assertThat(g.asyncError()).isNull();
            b.copyTo(MemorySegment.ofArray(host));
        }
        for (float x : host) {
            assertThat(x).isEqualTo(host[0]);
        }
        return host[0];
    }
}
