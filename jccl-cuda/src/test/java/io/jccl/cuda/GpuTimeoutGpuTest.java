package io.jccl.cuda;

import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A GPU kernel waiting for a peer that never makes the matching call gives up after the communicator's timeout
 * (Config.timeout / JCCL_TIMEOUT_MS) in every kind of wait (barrier, LL lines, FIFO data and credits, push chunks):
 * the stream completes, {@code asyncError()} names the rank, the peer and the collective, every later call fails
 * with the same error, and the communicators close at once. A peer that comes late, but within the limit, is not a
 * timeout. Needs 2 GPUs, one GPU with {@code -Djccl.cuda.shareDevices=true}, or the CPU emulator.
 */
@Tag("gpu")
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)   // without the limit, a wait never ends
class GpuTimeoutGpuTest {
    private static final Duration LIMIT = Duration.ofSeconds(1);
    /** How long a kernel may take to notice (the emulator's spin loops yield, so its checks come late). */
    private static final Duration NOTICE = Duration.ofSeconds(45);

    /** Every allReduce kernel family: LL, packed LL, LL128 and push at 1 KiB, one-shot, two-shot and the ring. */
    @ParameterizedTest
    @EnumSource(value = AllReduceAlgorithm.class, names = {"AUTO"}, mode = EnumSource.Mode.EXCLUDE)
    void anAllReduceWhosePeerNeverComesTimesOut(AllReduceAlgorithm algorithm) {
        GpuOptions o = GpuCollectivesGpuTest.withPull(GpuCollectivesGpuTest.smallOptions()).withAlgorithm(algorithm)
                .withLl128MaxBytes(1 << 20).withLl128BlocksPerSm(2);
        long count = switch (algorithm) {
            case LL, LL_PACKED, PUSH -> 200;
            default -> 20_011;
        };
        String error = timeOut(o, (g0, s) -> {
            try (DeviceBuffer b = DeviceBuffer.allocate(g0.device(), count * 4)) {
                g0.allReduce(b, b, count, DataType.FLOAT32, RedOp.SUM, s);
                s.synchronize();
            }
        });
        assertThat(error).contains("this rank's AllReduce kernel", "for rank 1", "limit 1000 ms");
    }

    @Test
    void aReceiveWithoutASendTimesOut() {
        String error = timeOut(GpuCollectivesGpuTest.smallOptions(), (g0, s) -> {
            try (DeviceBuffer b = DeviceBuffer.allocate(g0.device(), 1 << 16)) {
                g0.recv(b, 1 << 14, DataType.FLOAT32, 1, s);
                s.synchronize();
            }
        });
        assertThat(error).contains("send/recv kernel", "for rank 1", "its next FIFO step");
    }

    /** A replayed graph has no host work: the deadline and the record must come from the kernel alone. */
    @Test
    void aGraphReplayedOnOneRankOnlyTimesOut() {
        GpuOptions o = GpuCollectivesGpuTest.smallOptions();
        String error = timeOut(o, (g0, s) -> {
            try (DeviceBuffer b = DeviceBuffer.allocate(g0.device(), 1 << 16)) {
                s.beginCapture();
                g0.allReduce(b, b, 3001, DataType.FLOAT32, RedOp.SUM, s);
                try (CudaGraph graph = s.endCapture()) {
                    graph.launch(s);
                    s.synchronize();
                }
            }
        });
        assertThat(error).contains("this rank's AllReduce kernel", "for rank 1");
    }

    /**
     * The WARN for a timeout comes when the kernel gives up, not when the program next looks: here it never calls,
     * synchronises or asks for asyncError() before the line is logged.
     */
    @Test
    void aTimeoutIsLoggedWhenItHappensWithoutTheProgramLooking() throws Exception {
        java.util.concurrent.BlockingQueue<String> warns = new java.util.concurrent.LinkedBlockingQueue<>();
        io.jccl.internal.debug.LogSink previous = io.jccl.internal.debug.Log.useSink((level, subsys, rank, message) -> {
            if (level == io.jccl.internal.debug.Log.Level.WARN) {
                warns.add(message);
            }
        });
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus(),
                new Config(LIMIT, 0, 0, null), GpuCollectivesGpuTest.smallOptions());
        try (CudaStream s = CudaStream.create(comms.get(0).device());
             DeviceBuffer b = DeviceBuffer.allocate(comms.get(0).device(), 4096)) {
            comms.get(0).allReduce(b, b, 1024, DataType.FLOAT32, RedOp.SUM, s);
            long deadline = System.nanoTime() + LIMIT.plus(NOTICE).toNanos();
            String warn = null;
            while (warn == null && System.nanoTime() < deadline) {
                String m = warns.poll(100, java.util.concurrent.TimeUnit.MILLISECONDS);
                warn = m != null && m.contains("waited") ? m : null;
            }
            assertThat(warn).as("a WARN naming the timeout, logged without asking").isNotNull()
                    .contains("AllReduce kernel", "for rank 1", "limit 1000 ms");
            s.synchronize();
        } finally {
            io.jccl.internal.debug.Log.useSink(previous);
            comms.forEach(GpuCommunicator::close);
        }
    }

    @Test
    void aPeerThatComesLateButWithinTheLimitIsNoTimeout() throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus(),
                new Config(Duration.ofSeconds(30), 0, 0, null), GpuCollectivesGpuTest.smallOptions());
        try (CudaStream s0 = CudaStream.create(comms.get(0).device());
             CudaStream s1 = CudaStream.create(comms.get(1).device());
             DeviceBuffer b0 = DeviceBuffer.allocate(comms.get(0).device(), 4096);
             DeviceBuffer b1 = DeviceBuffer.allocate(comms.get(1).device(), 4096)) {
            comms.get(0).allReduce(b0, b0, 1024, DataType.FLOAT32, RedOp.SUM, s0);
            Thread.sleep(1500);
            comms.get(1).allReduce(b1, b1, 1024, DataType.FLOAT32, RedOp.SUM, s1);
            s0.synchronize();
            s1.synchronize();
            assertThat(comms.get(0).asyncError()).isNull();
            assertThat(comms.get(1).asyncError()).isNull();
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /**
     * Opens two ranks with a 1 s limit, lets rank 0 run {@code rank0Alone} (which must synchronise its stream),
     * checks what a timeout must do, and returns rank 0's error message.
     */
    private static String timeOut(GpuOptions o, BiConsumer<GpuCommunicator, CudaStream> rank0Alone) {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus(),
                new Config(LIMIT, 0, 0, null), o);
        GpuCommunicator g0 = comms.get(0);
        GpuCommunicator g1 = comms.get(1);
        try (CudaStream s = CudaStream.create(g0.device())) {
            long t0 = System.nanoTime();
            rank0Alone.accept(g0, s);
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            assertThat(took).as("the kernel waited about the limit").isBetween(LIMIT, LIMIT.plus(NOTICE));

            JcclException e = g0.asyncError();
            assertThat(e).as("rank 0's asyncError").isNotNull();
            assertThat(e.result()).isEqualTo(Result.TIMEOUT);
            assertThat(e.getMessage()).contains("rank 0/2", "GPU");
            JcclException seen1 = g1.asyncError();
            assertThat(seen1).as("rank 1 shares the clique's state").isNotNull();
            assertThat(seen1.getMessage()).contains("rank 1/2", "rank 0's", "for rank 1");
            try (DeviceBuffer b = DeviceBuffer.allocate(g0.device(), 64)) {
                assertThatThrownBy(() -> g0.allReduce(b, b, 4, DataType.FLOAT32, RedOp.SUM, s))
                        .isInstanceOf(JcclException.class).hasMessage(e.getMessage());
            }
            return e.getMessage();
        } finally {
            long t0 = System.nanoTime();
            comms.forEach(GpuCommunicator::close);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("close after a timeout")
                    .isLessThan(Duration.ofSeconds(20));
        }
    }
}
