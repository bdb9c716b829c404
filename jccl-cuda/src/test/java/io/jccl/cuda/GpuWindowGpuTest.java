package io.jccl.cuda;

import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.testing.GpuChecker;
import io.jccl.cuda.testing.GpuSymmetricRankMain;
import io.jccl.cuda.testing.GpuWindowRankMain;
import io.jccl.cuda.testing.SymmetricCases;
import io.jccl.cuda.testing.WindowRing;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Windows and one-sided putSignal / waitSignal ({@link GpuWindow}): data always arrives before its signal, round
 * after round and graph replay after replay, between the ranks of one process (initAll, peer access) and of two
 * processes (CUDA IPC); a window
 * cannot be closed while a call on it may still run; a wait nobody answers ends at the communicator's limit naming
 * the peer; wrong arguments are refused with the call named.
 */
@Tag("gpu")
class GpuWindowGpuTest {
    private static final long BLOCK = 1 << 20;

    @Test
    @Timeout(120)
    void dataArrivesBeforeItsSignalRoundAfterRound() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus());
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            List<GpuWindow> wins = onEachRank(pool, r -> comms.get(r).allocateWindow(2 * BLOCK));
            assertThat(wins.getFirst().sizeBytes()).isEqualTo(2 * BLOCK);
            List<String> wrong = onEachRank(pool, r -> WindowRing.run(comms.get(r), wins.get(r), BLOCK, 6));
            assertThat(wrong).containsOnlyNulls();
            // eagerly, stream memory operations only: 6 x (DATA, ACK) + 3 BURST puts, 6 x 2 + 1 waits per rank
            boolean kernels = "kernel".equals(System.getProperty("jccl.cuda.copyEngineWaits"));
            assertThat(wins).allSatisfy(w -> assertThat(w.streamSignalCalls()).isEqualTo(kernels ? 0 : 15 + 13));
            boolean batches = io.jccl.cuda.internal.driver.CuBatchCopies.available();
            assertThat(wins).allSatisfy(w -> assertThat(w.batchCopies()).isEqualTo(batches ? 6 : 0));
            // captured once, replayed: the counts advance on the GPU, so each replay waits for the next signals
            assertThat(onEachRank(pool, r -> WindowRing.runGraph(comms.get(r), wins.get(r), BLOCK, 4)))
                    .containsOnlyNulls();
            // then eagerly again: DATA and ACK go on counting on the GPU from where the graph left them
            assertThat(onEachRank(pool, r -> WindowRing.run(comms.get(r), wins.get(r), BLOCK, 2)))
                    .containsOnlyNulls();
            assertThat(wins).allSatisfy(w -> assertThat(w.streamSignalCalls()).isEqualTo(kernels ? 0 : 28 + 3 + 1));
            assertThat(onEachRank(pool, r -> WindowRing.runOnTwoStreams(comms.get(r), wins.get(r), BLOCK,
                    BLOCK / 16, 16))).containsOnlyNulls();
            // the graph's puts copied with cuMemcpyAsync (batches cannot be captured), the eager ones as batches
            assertThat(wins).allSatisfy(w -> assertThat(w.batchCopies()).isEqualTo(batches ? 6 + 2 + 16 : 0));
            closeAll(pool, wins);
            try (CudaStream s = CudaStream.create(comms.getFirst().device())) {
                assertThatThrownBy(() -> comms.getFirst().putSignal(wins.getFirst(), 0, wins.getFirst().buffer(), 0,
                        1, 0, s)).isInstanceOf(JcclException.class).hasMessageContaining("putSignal")
                        .hasMessageContaining("closed");
            }
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /**
     * {@link CtaPolicy#ZERO}: allGather, broadcast and allToAll whose receive buffers lie in a window run on the copy
     * engines (the window counts them), round after round with fresh data, every element checked; a receive buffer
     * outside any window still runs the kernels.
     */
    @Test
    @Timeout(120)
    void copyEngineCollectivesOnWindows() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus(), Config.defaults(),
                GpuOptions.fromSystemProperties().withCtaPolicy(CtaPolicy.ZERO));
        int count = 50_001;
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            List<GpuWindow> wins = onEachRank(pool, r -> comms.get(r).allocateWindow(3L * 2 * count * 4));
            List<String> wrong = onEachRank(pool, r -> CopyEngineRounds.run(comms.get(r), wins.get(r), count, 3));
            assertThat(wrong).containsOnlyNulls();
            assertThat(wins).allSatisfy(w -> assertThat(w.copyEngineCalls()).isEqualTo(3 * 3));
            // where the driver takes batches, every copy asks for the copy engines (none stays cuMemcpyAsync)
            assertThat(wins).allSatisfy(w -> assertThat(w.batchCopies() > 0)
                    .isEqualTo(io.jccl.cuda.internal.driver.CuBatchCopies.available()));
            closeAll(pool, wins);
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /**
     * The copy-engine collectives wait with stream memory operations, which have no limit of their own: the host
     * keeps it. Rank 0 calls a copy-engine allGather that rank 1 never makes; the stream drains after the limit and
     * asyncError names the call and the peer. Then an abort on rank 1 releases a second such wait at once.
     */
    @Test
    @Timeout(120)
    void aCopyEngineWaitEndsAtTheLimitOrAtAnAbort() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse("kernel".equals(io.jccl.internal.param.InternalProperties
                .CUDA_COPY_ENGINE_WAITS.get()), "the copy-engine waits are kernels here (their limit is the kernels')");
        for (boolean abort : new boolean[] {false, true}) {
            List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus(),
                    Config.defaults().withTimeout(Duration.ofSeconds(abort ? 60 : 2)),
                    GpuOptions.fromSystemProperties().withCtaPolicy(CtaPolicy.ZERO));
            try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
                List<GpuWindow> wins = onEachRank(pool, r -> comms.get(r).allocateWindow(2 * 4096));
                try (CudaStream s = CudaStream.create(comms.get(0).device());
                     DeviceBuffer send = DeviceBuffer.allocate(comms.get(0).device(), 4096)) {
                    long t0 = System.nanoTime();
                    comms.get(0).allGather(send, wins.get(0).buffer(), 1024, DataType.INT32, s);
                    assertThat(wins.get(0).copyEngineCalls()).isEqualTo(1);
                    Thread.sleep(300);
                    assertThat(s.isIdle()).as("rank 0 waits for rank 1").isFalse();
                    if (abort) {
                        comms.get(1).abort();
                    }
                    s.synchronize();
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    JcclException e = comms.get(0).asyncError();
                    assertThat(e).isNotNull();
                    if (abort) {
                        assertThat(e.result()).isEqualTo(Result.ABORTED);
                        assertThat(ms).isLessThan(10_000);
                    } else {
                        assertThat(e.result()).isEqualTo(Result.TIMEOUT);
                        assertThat(e.getMessage()).contains("copy-engine allGather (every rank ready)",
                                "signal of rank(s) 1", "limit 2000 ms");
                        assertThat(ms).isBetween(2_000L, 30_000L);
                    }
                }
            } finally {
                comms.forEach(GpuCommunicator::close);
            }
        }
    }

    @Test
    @Timeout(120)
    void aWindowIsNotClosedWhileAWaitOnItRuns() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus());
        List<DeviceBuffer> bufs = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            for (GpuCommunicator g : comms) {
                bufs.add(DeviceBuffer.allocate(g.device(), 4096));
            }
            List<GpuWindow> wins = onEachRank(pool, r -> comms.get(r).registerWindow(bufs.get(r)));
            CudaStream s0 = CudaStream.create(comms.get(0).device());
            comms.get(0).waitSignal(wins.get(0), 1, 0, 1, s0);   // rank 1 has not put yet
            List<String> refusals = onEachRank(pool, r -> outcome(wins.get(r)::close, "closed"));
            for (String refusal : refusals) {
                assertThat(refusal).startsWith("INVALID_USAGE").contains("closing a window", "rank(s) [0]",
                        "synchronize");
            }
            try (CudaStream s1 = CudaStream.create(comms.get(1).device())) {
                comms.get(1).putSignal(wins.get(1), 128, bufs.get(1), 64, 0, 0, s1);
                s1.synchronize();
            }
            s0.synchronize();
            s0.close();
            assertThat(comms.get(0).asyncError()).isNull();
            closeAll(pool, wins);
        } finally {
            comms.forEach(GpuCommunicator::close);
            bufs.forEach(DeviceBuffer::close);   // registered memory stays the caller's
        }
    }

    @Test
    @Timeout(120)
    void aWaitNobodyAnswersEndsAtTheLimitNamingThePeer() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus(),
                Config.defaults().withTimeout(Duration.ofSeconds(2)));
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            List<GpuWindow> wins = onEachRank(pool, r -> comms.get(r).allocateWindow(64));
            try (CudaStream s = CudaStream.create(comms.get(0).device())) {
                long t0 = System.nanoTime();
                comms.get(0).waitSignal(wins.get(0), 1, 7, 1, s);
                s.synchronize();
                long ms = (System.nanoTime() - t0) / 1_000_000;
                JcclException e = comms.get(0).asyncError();
                assertThat(e).isNotNull();
                assertThat(e.result()).isEqualTo(Result.TIMEOUT);
                assertThat(e.getMessage()).contains("waitSignal (signal 7", "rank(s) 1", "putSignal into a window");
                assertThat(ms).isLessThan(30_000);
            }
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    @Test
    @Timeout(120)
    void wrongArgumentsAreRefusedNamingTheCall() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus());
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            List<String> sizes = onEachRank(pool, r -> {
                try (DeviceBuffer b = DeviceBuffer.allocate(comms.get(r).device(), 4096L * (r + 1))) {
                    return outcome(() -> comms.get(r).registerWindow(b).close(), "registered");
                }
            });
            assertThat(sizes).allSatisfy(m -> assertThat(m).startsWith("INVALID_USAGE").contains("registerWindow",
                    "same size", "4096", "8192"));
            List<GpuWindow> wins = onEachRank(pool, r -> comms.get(r).allocateWindow(4096));
            GpuCommunicator g = comms.getFirst();
            GpuWindow w = wins.getFirst();
            try (CudaStream s = CudaStream.create(g.device())) {
                assertThatThrownBy(() -> g.putSignal(w, 0, w.buffer(), 16, 1, GpuWindow.SIGNALS, s))
                        .hasMessageContaining("signal 16 outside 0..15");
                assertThatThrownBy(() -> g.putSignal(w, 4090, w.buffer(), 16, 1, 0, s))
                        .hasMessageContaining("do not fit the window of 4096 bytes");
                assertThatThrownBy(() -> g.putSignal(w, 0, w.buffer(), 16, 2, 0, s)).hasMessageContaining("peer");
                assertThatThrownBy(() -> g.waitSignal(w, 1, 0, 0, s)).hasMessageContaining("at least 1");
                assertThatThrownBy(() -> g.putSignal(wins.get(1), 0, w.buffer(), 16, 1, 0, s))
                        .hasMessageContaining("belongs to");
                GpuCommunicator.groupStart();
                try {
                    assertThatThrownBy(() -> g.putSignal(w, 0, w.buffer(), 16, 1, 0, s))
                            .hasMessageContaining("group");
                } finally {
                    GpuCommunicator.groupEnd();
                }
            }
            closeAll(pool, wins);
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /**
     * One process per GPU: the windows are CUDA IPC mappings. On the emulator every peer copy of rank 1 starts 10 ms
     * late ({@code JCCL_EMU_PEER_COPY_DELAY_US}; rank 0's at once, so its own copies do not hide the delay), so a
     * signal that did not wait for its data would be seen before it by rank 0;
     * with NCCL_CTA_POLICY=2 the copy-engine collectives run between the processes too.
     */
    @Test
    void processesReachEachOthersWindowsThroughIpc() throws Exception {
        List<String> outs = GpuProcessesGpuTest.runRanks(2, GpuWindowRankMain.class, Map.of("JCCL_TIMEOUT_MS",
                "30000", "JCCL_EMU_PEER_COPY_DELAY_US", "{rank}0000", "NCCL_CTA_POLICY", "2"), 180);
        for (int r = 0; r < 2; r++) {
            assertThat(outs.get(r)).contains("rank " + r + " copy engines ok", "rank " + r + " windows ok")
                    .doesNotContain("WRONG");
        }
    }

    /**
     * Symmetric kernels between the ranks of one process (initAll): every type, allReduce with every reduction at a
     * one-shot and a two-shot size, reduceScatter, allGather and broadcast, in and out of place, every buffer in a
     * window; each planned as "sym-..." and exact. The same sizes outside a window run the communicator's own kernels.
     */
    @Test
    @Timeout(300)
    void symmetricKernelsOnWindowsInOneProcess() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus(), Config.defaults(),
                GpuCollectivesGpuTest.withPull(GpuCollectivesGpuTest.smallOptions()));
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            List<GpuWindow> wins = onEachRank(pool, r -> comms.get(r).allocateWindow(2 * SymmetricCases.BYTES));
            try (GpuChecker checker = new GpuChecker(comms, wins, SymmetricCases.BYTES, Duration.ofSeconds(60));
                 GpuChecker plain = new GpuChecker(comms, SymmetricCases.BYTES, Duration.ofSeconds(60))) {
                assertThat(SymmetricCases.run(checker, 2, 2)).isEmpty();
                long calls = SymmetricCases.cases(2).size();
                assertThat(wins).allSatisfy(w -> assertThat(w.symmetricCalls()).isEqualTo(calls));
                for (GpuChecker.Case c : SymmetricCases.cases(2)) {
                    assertThat(plain.algorithm(c, 0)).as(c.toString()).doesNotStartWith("sym-");
                }
            }
            closeAll(pool, wins);
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /**
     * A symmetric allReduce on a window that still runs (rank 0's kernel waits for rank 1's, which is not issued yet)
     * keeps the window open on every rank; once rank 1 issued its call and both finished, the window closes, and the
     * sum is right.
     */
    @Test
    @Timeout(120)
    void aWindowIsNotClosedWhileASymmetricCollectiveOnItRuns() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus(), Config.defaults(),
                GpuCollectivesGpuTest.withPull(GpuCollectivesGpuTest.smallOptions()));
        int count = 7_000;   // 28,000 bytes: the two-shot size of these options
        long bytes = count * 4L;
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            List<GpuWindow> wins = onEachRank(pool, r -> comms.get(r).allocateWindow(bytes));
            List<CudaStream> streams = List.of(CudaStream.create(comms.get(0).device()),
                    CudaStream.create(comms.get(1).device()));
            for (int r = 0; r < 2; r++) {
                float[] ones = new float[count];
                java.util.Arrays.fill(ones, r + 1);
                wins.get(r).buffer().copyFrom(java.lang.foreign.MemorySegment.ofArray(ones));
            }
            DeviceBuffer w0 = wins.get(0).buffer();
            assertThat(comms.get(0).algorithmFor(io.jccl.Collective.ALL_REDUCE, count, io.jccl.DataType.FLOAT32,
                    io.jccl.RedOp.SUM, w0, w0)).startsWith("sym-twoshot");
            comms.get(0).allReduce(w0, w0, count, io.jccl.DataType.FLOAT32, io.jccl.RedOp.SUM, streams.get(0));
            List<String> refusals = onEachRank(pool, r -> outcome(wins.get(r)::close, "closed"));
            for (String refusal : refusals) {
                assertThat(refusal).startsWith("INVALID_USAGE").contains("closing a window", "rank(s) [0]",
                        "collective");
            }
            DeviceBuffer w1 = wins.get(1).buffer();
            comms.get(1).allReduce(w1, w1, count, io.jccl.DataType.FLOAT32, io.jccl.RedOp.SUM, streams.get(1));
            streams.forEach(CudaStream::synchronize);
            float[] got = new float[count];
            w0.copyTo(java.lang.foreign.MemorySegment.ofArray(got));
            assertThat(got).containsOnly(3f);
            assertThat(comms.get(0).asyncError()).isNull();
            streams.forEach(CudaStream::close);
            closeAll(pool, wins);
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /**
     * One rank's allReduce buffers in a window, the other's not: the call check sees two different calls, the second
     * rank's call is refused naming both, and the first rank's kernel stops with the same cause.
     */
    @Test
    @Timeout(120)
    void aCallInAWindowOnOneRankOnlyIsRefusedNamingBoth() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus(), Config.defaults(),
                GpuCollectivesGpuTest.withPull(GpuCollectivesGpuTest.smallOptions()));
        int count = 7_000;
        try (ExecutorService pool = Executors.newFixedThreadPool(2);
             DeviceBuffer plain = DeviceBuffer.allocate(comms.get(1).device(), count * 4L);
             CudaStream s0 = CudaStream.create(comms.get(0).device());
             CudaStream s1 = CudaStream.create(comms.get(1).device())) {
            List<GpuWindow> wins = onEachRank(pool, r -> comms.get(r).allocateWindow(count * 4L));
            DeviceBuffer w0 = wins.get(0).buffer();
            comms.get(0).allReduce(w0, w0, count, io.jccl.DataType.FLOAT32, io.jccl.RedOp.SUM, s0);
            assertThatThrownBy(() -> comms.get(1).allReduce(plain, plain, count, io.jccl.DataType.FLOAT32,
                    io.jccl.RedOp.SUM, s1)).isInstanceOf(JcclException.class)
                    .hasMessageContaining("AllReduce(count 7000 float sum, buffers in a window)")
                    .hasMessageContaining("AllReduce(count 7000 float sum)");
            s0.synchronize();
            assertThat(comms.get(0).asyncError()).isNotNull();
            assertThat(comms.get(0).asyncError().result()).isEqualTo(Result.INVALID_USAGE);
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /**
     * Symmetric kernels with one process per GPU: the peers' windows are CUDA IPC mappings, reached through the
     * kernels' window table; the same cases, and a captured two-shot allReduce replayed with new inputs.
     */
    @Test
    void processesRunSymmetricKernelsOnEachOthersWindows() throws Exception {
        List<String> outs = GpuProcessesGpuTest.runRanks(2, GpuSymmetricRankMain.class, Map.of("JCCL_TIMEOUT_MS",
                "30000"), 240);
        for (int r = 0; r < 2; r++) {
            assertThat(outs.get(r)).contains("rank " + r + " symmetric ok").doesNotContain("WRONG");
        }
    }

    private static <T> List<T> onEachRank(ExecutorService pool, IntFunction<T> body) throws Exception {
        return GpuSplitGpuTest.onEachRank(pool, body);
    }

    /** Closes each rank's window on its own thread (close is collective). */
    private static void closeAll(ExecutorService pool, List<GpuWindow> wins) throws Exception {
        onEachRank(pool, r -> {
            wins.get(r).close();
            return null;
        });
    }

    /** What {@code call} gave: {@code ok}, or the result and message it threw. */
    private static String outcome(Runnable call, String ok) {
        try {
            call.run();
            return ok;
        } catch (JcclException e) {
            return e.result() + " " + e.getMessage();
        }
    }
}
