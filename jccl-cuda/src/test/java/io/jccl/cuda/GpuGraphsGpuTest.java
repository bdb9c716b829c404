package io.jccl.cuda;

import io.jccl.Collective;
import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.testing.GpuChecker;
import io.jccl.cuda.testing.GpuChecker.Case;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * CUDA graph capture and replay of every kernel family, abort of a kernel whose peer never comes, and the default
 * thresholds at sizes that reach the ring (real GPUs only: too large for the emulator). Skipped without 2 GPUs.
 */
@Tag("gpu")
class GpuGraphsGpuTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static boolean emulated() {
        return CudaDevice.get(0).name().contains("emulated");
    }

    /**
     * Each graph holds 3 in-place sum allReduces on each GPU; every replay doubles the data 3 times, so after k
     * replays the data is 8^k times its sum: replays must really run, in order, with fresh counters.
     */
    @Test
    void capturedAllReducesReplayWithoutHostWork() {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus(), Config.defaults(),
                GpuCollectivesGpuTest.withPull(GpuCollectivesGpuTest.smallOptions()));
        int n = comms.size();
        // ll128 (LL128 from 0 to 3K), push, oneshot, twoshot, ring
        long[] counts = {6, 200, 400, 700, 900, 3000, 6000, 20_000};
        List<CudaStream> streams = new ArrayList<>();
        List<DeviceBuffer> bufs = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            for (GpuCommunicator g : comms) {
                streams.add(CudaStream.create(g.device()));
                bufs.add(DeviceBuffer.allocate(g.device(), 20_000 * 4));
                g.preload(DataType.FLOAT32, RedOp.SUM);
            }
            for (long count : counts) {
                MemorySegment h = arena.allocate(count * 4, 16);
                for (int g = 0; g < n; g++) {
                    for (long i = 0; i < count; i++) {
                        h.setAtIndex(JAVA_FLOAT, i, (float) ((i % 5) + g));
                    }
                    bufs.get(g).copyFrom(h);
                }
                List<CudaGraph> graphs = new ArrayList<>();
                for (int g = 0; g < n; g++) {
                    streams.get(g).beginCapture();
                }
                for (int rep = 0; rep < 3; rep++) {
                    for (int g = 0; g < n; g++) {
                        DeviceBuffer b = bufs.get(g).slice(0, count * 4);
                        comms.get(g).allReduce(b, b, count, DataType.FLOAT32, RedOp.SUM, streams.get(g));
                    }
                }
                for (int g = 0; g < n; g++) {
                    graphs.add(streams.get(g).endCapture());
                }
                int replays = 3;
                for (int k = 0; k < replays; k++) {
                    for (int g = 0; g < n; g++) {
                        graphs.get(g).launch(streams.get(g));
                    }
                }
                for (CudaStream s : streams) {
                    s.synchronize();
                }
                graphs.forEach(CudaGraph::close);
                String plan = comms.getFirst().algorithmFor(Collective.ALL_REDUCE, count, DataType.FLOAT32, RedOp.SUM);
                for (int g = 0; g < n; g++) {
                    bufs.get(g).slice(0, count * 4).copyTo(h);
                    for (long i = 0; i < count; i++) {
                        double sum = 2 * (i % 5) + 1;
                        double want = sum * Math.pow(2, 3 * replays - 1);
                        assertThat((double) h.getAtIndex(JAVA_FLOAT, i)).as("%s count %d rank %d element %d", plan,
                                count, g, i).isEqualTo(want);
                    }
                }
            }
        } finally {
            streams.forEach(CudaStream::close);
            bufs.forEach(DeviceBuffer::close);
            comms.forEach(GpuCommunicator::close);
        }
    }

    /**
     * Every kernel family captured and replayed twice on 2 and 4 ranks (4: GPUs 0-3, or GPU 0 four times with
     * {@code -Djccl.cuda.shareDevices=true}): the rooted LL calls of more than 2 ranks tell every peer when they are
     * done, and replays must keep that up too.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void capturedCollectivesOfEveryFamilyMatchTheirEagerResults(int n) {
        List<CudaDevice> devices = GpuCollectivesGpuTest.gpus(n);
        List<GpuCommunicator> comms = GpuCommunicator.initAll(devices, Config.defaults(),
                GpuCollectivesGpuTest.smallOptions());
        try (GpuChecker c = new GpuChecker(comms, 1 << 20, TIMEOUT)) {
            for (GpuCommunicator g : comms) {
                g.preload(DataType.BFLOAT16, RedOp.SUM);
            }
            List<String> wrong = new ArrayList<>();
            for (Collective coll : new Collective[] {Collective.ALL_GATHER, Collective.REDUCE_SCATTER,
                Collective.BROADCAST, Collective.REDUCE, Collective.SEND_RECV, Collective.ALL_TO_ALL}) {
                for (long count : new long[] {100, 5000}) {
                    Case k = new Case(coll, DataType.BFLOAT16, RedOp.Kind.SUM, count, false, 1);
                    GpuChecker.Layout[] lay = new GpuChecker.Layout[n];
                    for (int i = 0; i < n; i++) {
                        lay[i] = c.layout(k, i);
                    }
                    c.run(k);   // fills the inputs, checked eagerly
                    for (int i = 0; i < n; i++) {
                        c.stream(i).beginCapture();
                    }
                    c.issue(k, lay);
                    List<CudaGraph> graphs = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        graphs.add(c.stream(i).endCapture());
                    }
                    for (int rep = 0; rep < 2; rep++) {
                        for (int i = 0; i < n; i++) {
                            graphs.get(i).launch(c.stream(i));
                        }
                    }
                    String w = c.verify(k, lay);
                    if (w != null) {
                        wrong.add("graph " + w);
                    }
                    graphs.forEach(CudaGraph::close);
                }
            }
            assertThat(wrong).isEmpty();
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    @Test
    void abortReleasesAKernelWhosePeerNeverCame() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus());
        GpuCommunicator g0 = comms.get(0);
        try (CudaStream s = CudaStream.create(g0.device());
             DeviceBuffer b = DeviceBuffer.allocate(g0.device(), 1 << 20)) {
            g0.allReduce(b, b, 1 << 18, DataType.FLOAT32, RedOp.SUM, s);   // rank 1 never joins
            Thread.sleep(200);
            assertThat(s.isIdle()).isFalse();
            g0.abort();
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!s.isIdle() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(s.isIdle()).as("kernel returned after abort").isTrue();
            assertThatThrownBy(() -> g0.allReduce(b, b, 4, DataType.FLOAT32, RedOp.SUM, s))
                    .isInstanceOf(JcclException.class).matches(e -> ((JcclException) e).result() == Result.ABORTED);
            // rank 1's kernels stopped too: it must not go on launching kernels that return at once
            GpuCommunicator g1 = comms.get(1);
            assertThat(g1.asyncError()).isNotNull().matches(e -> e.result() == Result.ABORTED)
                    .extracting(Throwable::getMessage).asString().contains("rank 0/2", "called abort()");
            try (CudaStream s1 = CudaStream.create(g1.device());
                 DeviceBuffer b1 = DeviceBuffer.allocate(g1.device(), 1 << 10)) {
                assertThatThrownBy(() -> g1.allReduce(b1, b1, 4, DataType.FLOAT32, RedOp.SUM, s1))
                        .isInstanceOf(JcclException.class).hasMessageContaining("rank 1/2")
                        .hasMessageContaining("called abort()")
                        .matches(e -> ((JcclException) e).result() == Result.ABORTED);
            }
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /** The default thresholds, at sizes that reach one-shot, two-shot and the ring with many channels. */
    @Test
    void defaultOptionsAtLargeSizes() {
        List<CudaDevice> devs = GpuCollectivesGpuTest.twoGpus();
        assumeTrue(!emulated(), "too large for the CPU emulator");
        List<GpuCommunicator> comms = GpuCommunicator.initAll(devs);
        try (GpuChecker c = new GpuChecker(comms, 160L << 20, TIMEOUT)) {
            List<Case> cases = new ArrayList<>();
            for (long count : new long[] {(8L << 20) / 4 + 3, (48L << 20) / 4, (150L << 20) / 4 + 5}) {
                cases.add(new Case(Collective.ALL_REDUCE, DataType.FLOAT32, RedOp.Kind.SUM, count, false, 0));
            }
            cases.add(new Case(Collective.ALL_REDUCE, DataType.FLOAT32, RedOp.Kind.SUM, (150L << 20) / 4, true, 0));
            cases.add(new Case(Collective.ALL_REDUCE, DataType.BFLOAT16, RedOp.Kind.MAX, (100L << 20) / 2 + 1, false, 0));
            cases.add(new Case(Collective.ALL_GATHER, DataType.FLOAT32, RedOp.Kind.SUM, (64L << 20) / 4, false, 0));
            cases.add(new Case(Collective.REDUCE_SCATTER, DataType.FLOAT32, RedOp.Kind.SUM, (64L << 20) / 4, true, 0));
            cases.add(new Case(Collective.BROADCAST, DataType.FLOAT32, RedOp.Kind.SUM, (128L << 20) / 4, false, 1));
            cases.add(new Case(Collective.SEND_RECV, DataType.FLOAT32, RedOp.Kind.SUM, (128L << 20) / 4, false, 0));
            cases.add(new Case(Collective.ALL_TO_ALL, DataType.FLOAT32, RedOp.Kind.SUM, (32L << 20) / 4, false, 0));
            assertThat(GpuCollectivesGpuTest.runAll(c, cases)).isEmpty();
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }
}
