package io.jccl.cuda;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.MemoryStats;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.testing.GpuSuspendRankMain;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link GpuCommunicator#suspend()}, {@link GpuCommunicator#resume()} and {@link GpuCommunicator#memoryStats()}: the
 * device memory of the collective areas (and the host communicator's FIFOs) goes to zero on suspend, calls are
 * refused while suspended, and after resume allReduce and allGather give exact results again, with the same memory
 * as before, cycle after cycle; a graph captured before a suspend is refused and one captured again replays; open
 * windows make every rank refuse; with one process per GPU the peers' CUDA IPC mappings go and come back too, and
 * across hosts the pinned FIFOs and mirrors with their network connectors.
 */
@Tag("gpu")
class GpuSuspendGpuTest {
    private static final int N = 4;
    private static final int COUNT = 40_000;

    @Test
    @Timeout(300)
    void fourGpuThreadRanksSuspendAndResumeTwice() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.gpus(N));
        try (ExecutorService pool = Executors.newFixedThreadPool(N)) {
            checkedCalls(comms, 0);
            MemoryStats[] before = comms.stream().map(GpuCommunicator::memoryStats).toArray(MemoryStats[]::new);
            for (MemoryStats s : before) {
                assertThat(s.deviceBytes()).as("the collective area").isGreaterThan(1L << 20);
                assertThat(s.peerMappedBytes()).as("the host communicator's peers' FIFOs").isPositive();
                assertThat(s.suspended()).isFalse();
            }
            System.out.println("initAll of " + N + ", rank 0 before suspend: " + before[0].describe());
            List<CudaGraph> stale = capture(comms);
            for (int cycle = 1; cycle <= 2; cycle++) {
                onEachRank(pool, r -> {
                    comms.get(r).suspend();
                    return null;
                });
                for (int r = 0; r < N; r++) {
                    MemoryStats s = comms.get(r).memoryStats();
                    assertThat(s.suspended()).isTrue();
                    assertThat(s.deviceBytes()).as("rank %d device bytes while suspended", r).isZero();
                    assertThat(s.sharedBytes()).isZero();
                    assertThat(s.peerMappedBytes()).isZero();
                    assertThat(s.suspendedBytes()).isEqualTo(before[r].totalBytes() - s.totalBytes());
                    GpuCommunicator g = comms.get(r);
                    try (DeviceBuffer b = DeviceBuffer.allocate(g.device(), 64); CudaStream st = CudaStream.create(
                            g.device())) {
                        assertThatThrownBy(() -> g.allReduce(b, b, 16, DataType.FLOAT32, RedOp.SUM, st))
                                .isInstanceOf(JcclException.class)
                                .hasMessageContaining("rank " + r + "/" + N)
                                .hasMessageContaining("allReduce called while the communicator is suspended")
                                .extracting(e -> ((JcclException) e).result()).isEqualTo(Result.INVALID_USAGE);
                        assertThatThrownBy(() -> g.host().barrier()).hasMessageContaining("suspended");
                    }
                }
                System.out.println("cycle " + cycle + ", rank 0 suspended: " + comms.get(0).memoryStats().describe());
                assertThat(io.jccl.internal.ras.RasServer.answer(io.jccl.internal.ras.RasServer.Command.STATUS))
                        .as("the status port").contains("GPU communicator " + comms.get(0).host().id())
                        .contains("device 0 B; suspended (");
                onEachRank(pool, r -> {
                    comms.get(r).resume();
                    return null;
                });
                checkedCalls(comms, cycle);
                for (int r = 0; r < N; r++) {
                    assertThat(comms.get(r).memoryStats()).as("rank %d after cycle %d", r, cycle).isEqualTo(before[r]);
                }
            }
            for (CudaGraph g : stale) {
                assertThatThrownBy(() -> g.launch(CudaStream.create(g.device())))
                        .isInstanceOf(JcclException.class).hasMessageContaining("captured before it was suspended")
                        .hasMessageContaining("capture it again");
                g.close();
            }
            capture(comms).forEach(CudaGraph::close);   // captured again: replays (inside capture())
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    @Test
    @Timeout(120)
    void openWindowsAndDoubleCallsAreRefusedOnEveryRank() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.gpus(2));
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            List<GpuWindow> wins = GpuSplitGpuTest.onEachRank(pool, r -> comms.get(r).allocateWindow(4096));
            GpuSplitGpuTest.onEachRank(pool, r -> {
                assertThatThrownBy(() -> comms.get(r).suspend()).isInstanceOf(JcclException.class)
                        .hasMessageContaining("suspend (GPU) of communicator " + comms.get(r).host().id()
                                + " refused on every rank")
                        .hasMessageContaining("rank 0 has 1 window(s) open (close them first)")
                        .hasMessageContaining("rank 1 has 1 window(s) open");
                return null;
            });
            GpuSplitGpuTest.onEachRank(pool, r -> {
                wins.get(r).close();
                assertThatThrownBy(() -> comms.get(r).resume()).hasMessageContaining("rank 0 is not suspended")
                        .hasMessageContaining("rank 1 is not suspended");
                comms.get(r).suspend();
                assertThatThrownBy(() -> comms.get(r).suspend()).hasMessageContaining("rank " + (1 - r)
                        + " is already suspended");
                comms.get(r).resume();
                return null;
            });
            assertThat(GpuSplitGpuTest.onEachRank(pool, r -> GpuSplitGpuTest.allReduce(comms.get(r), r + 1)))
                    .containsOnly(3f);
            GpuSplitGpuTest.onEachRank(pool, r -> {   // close while suspended
                comms.get(r).suspend();
                return null;
            });
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /** Two processes, one GPU each: CUDA IPC mappings of the peer's area are unmapped and mapped again. */
    @Test
    @Timeout(240)
    void twoProcessesSuspendAndResume() throws Exception {
        List<String> outs = GpuProcessesGpuTest.runRanks(2, GpuSuspendRankMain.class, Map.of(), 200);
        for (int r = 0; r < 2; r++) {
            assertThat(outs.get(r)).contains("rank " + r + " OK after 2 cycles");
            System.out.println("process rank " + r + ": " + outs.get(r).lines().filter(l -> l.startsWith("memory"))
                    .toList());
        }
    }

    /** Two processes on two hosts: the pinned FIFOs and mirrors and their network connectors go and come back. */
    @Test
    @Timeout(240)
    void twoProcessesOnTwoHostsSuspendAndResume() throws Exception {
        List<String> outs = GpuProcessesGpuTest.runRanks(2, GpuSuspendRankMain.class, Map.of("NCCL_HOSTID",
                "jccl-test-host-{rank}", "JCCL_TIMEOUT_MS", "30000", "NCCL_DEBUG", "INFO", "NCCL_DEBUG_SUBSYS",
                "INIT"), 200);
        for (int r = 0; r < 2; r++) {
            assertThat(outs.get(r)).contains("rank " + r + " OK after 2 cycles", "suspend: released",
                    "resume: took back").doesNotContain("JCCL WARN");
            System.out.println("process rank " + r + " on a host of its own: " + outs.get(r).lines()
                    .filter(l -> l.startsWith("memory") || l.contains("suspend: released")).toList());
        }
    }

    /** allReduce and allGather on every rank from this thread (launches return at once), checked exactly. */
    private static void checkedCalls(List<GpuCommunicator> comms, int salt) {
        List<DeviceBuffer> bufs = new ArrayList<>();
        List<DeviceBuffer> gathered = new ArrayList<>();
        List<CudaStream> streams = new ArrayList<>();
        try {
            for (GpuCommunicator g : comms) {
                float[] h = new float[COUNT];
                for (int i = 0; i < COUNT; i++) {
                    h[i] = (g.rank() + 1) * (i % 11 + salt);
                }
                DeviceBuffer b = DeviceBuffer.allocate(g.device(), 4L * COUNT);
                b.copyFrom(MemorySegment.ofArray(h));
                bufs.add(b);
                gathered.add(DeviceBuffer.allocate(g.device(), 4L * COUNT * N));
                streams.add(CudaStream.create(g.device()));
            }
            for (int r = 0; r < comms.size(); r++) {
                comms.get(r).allReduce(bufs.get(r), bufs.get(r), COUNT, DataType.FLOAT32, RedOp.SUM, streams.get(r));
            }
            for (int r = 0; r < comms.size(); r++) {
                comms.get(r).allGather(bufs.get(r), gathered.get(r), COUNT, DataType.FLOAT32, streams.get(r));
            }
            int n = comms.size();
            float ranks = n * (n + 1) / 2f;
            for (int r = 0; r < n; r++) {
                streams.get(r).synchronize();
                assertThat(comms.get(r).asyncError()).isNull();
                float[] all = new float[COUNT * n];
                gathered.get(r).slice(0, 4L * COUNT * n).copyTo(MemorySegment.ofArray(all));
                for (int i = 0; i < COUNT * n; i++) {
                    float want = ranks * (i % COUNT % 11 + salt);
                    if (all[i] != want) {
                        throw new AssertionError("rank " + r + " element " + i + ": " + all[i] + " != " + want);
                    }
                }
            }
        } finally {
            bufs.forEach(DeviceBuffer::close);
            gathered.forEach(DeviceBuffer::close);
            streams.forEach(CudaStream::close);
        }
    }

    /**
     * Captures an allReduce of every rank into a graph, replays it once and checks the sums; returns the graphs
     * (their buffers stay allocated: a later launch must be refused before it touches anything).
     */
    private static List<CudaGraph> capture(List<GpuCommunicator> comms) {
        List<CudaGraph> graphs = new ArrayList<>();
        List<CudaStream> streams = new ArrayList<>();
        List<DeviceBuffer> bufs = new ArrayList<>();
        for (GpuCommunicator g : comms) {
            g.preload(DataType.FLOAT32, RedOp.SUM);
            streams.add(CudaStream.create(g.device()));
            DeviceBuffer b = DeviceBuffer.allocate(g.device(), 4L * 1000);
            b.copyFrom(MemorySegment.ofArray(filled(1000, g.rank() + 1)));
            bufs.add(b);
        }
        for (int r = 0; r < comms.size(); r++) {
            streams.get(r).beginCapture();
        }
        for (int r = 0; r < comms.size(); r++) {
            comms.get(r).allReduce(bufs.get(r), bufs.get(r), 1000, DataType.FLOAT32, RedOp.SUM, streams.get(r));
        }
        for (int r = 0; r < comms.size(); r++) {
            graphs.add(streams.get(r).endCapture());
        }
        for (int r = 0; r < comms.size(); r++) {
            graphs.get(r).launch(streams.get(r));
        }
        int n = comms.size();
        for (int r = 0; r < n; r++) {
            streams.get(r).synchronize();
            float[] h = new float[1000];
            bufs.get(r).copyTo(MemorySegment.ofArray(h));
            assertThat(h).containsOnly(n * (n + 1) / 2f);
            streams.get(r).close();
        }
        return graphs;
    }

    private static float[] filled(int n, float v) {
        float[] a = new float[n];
        java.util.Arrays.fill(a, v);
        return a;
    }

    private static <T> List<T> onEachRank(ExecutorService pool, IntFunction<T> body) throws Exception {
        return GpuSplitGpuTest.onEachRank(pool, N, body);
    }
}
