package io.jccl.cuda;

import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * With {@code initAll}, a rank whose collective call differs from another rank's call at the same position (count,
 * type, op, root, collective), or whose receive is not as long as its send, is refused before its kernel launches,
 * with both calls named; the kernels the other
 * ranks already launched stop at once (not after the timeout), and every rank's later calls and
 * {@code asyncError()} report the mismatch. Needs 2 GPUs, one GPU with {@code -Djccl.cuda.shareDevices=true}, or the
 * CPU emulator.
 */
@Tag("gpu")
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class GpuCallCheckGpuTest {
    @Test
    void aDifferentCountIsRefusedAndStopsThePeersKernel() {
        withPair(1 << 16, (g0, g1, s0, s1, b0, b1) -> {
            g0.allReduce(b0, b0, 16, DataType.FLOAT32, RedOp.SUM, s0);       // a matching call first
            g1.allReduce(b1, b1, 16, DataType.FLOAT32, RedOp.SUM, s1);
            g0.allReduce(b0, b0, 1000, DataType.FLOAT32, RedOp.SUM, s0);
            assertThatThrownBy(() -> g1.allReduce(b1, b1, 2000, DataType.FLOAT32, RedOp.SUM, s1))
                    .isInstanceOf(JcclException.class)
                    .matches(e -> ((JcclException) e).result() == Result.INVALID_USAGE)
                    .hasMessageContaining("rank 1/2")
                    .hasMessageContaining("collective call 2 of this rank, AllReduce(count 2000 float")
                    .hasMessageContaining("rank 0's call 2, AllReduce(count 1000 float");
            long t0 = System.nanoTime();
            s0.synchronize();
            s1.synchronize();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("rank 0's kernel stopped")
                    .isLessThan(Duration.ofSeconds(60));
            assertThat(g0.asyncError()).isNotNull().extracting(JcclException::result).isEqualTo(Result.INVALID_USAGE);
            assertThat(g1.asyncError()).hasMessage(g0.asyncError().getMessage());
            assertThatThrownBy(() -> g0.allReduce(b0, b0, 16, DataType.FLOAT32, RedOp.SUM, s0))
                    .isInstanceOf(JcclException.class).hasMessageContaining("rank 0/2")
                    .hasMessageContaining("refused: the communicator was stopped: GpuCommunicator rank 1/2")
                    .hasMessageContaining("differs from rank 0's call 2");
        });
    }

    @Test
    void aReceiveShorterThanItsSendIsRefusedAndStopsTheSender() {
        withPair(1 << 20, (g0, g1, s0, s1, b0, b1) -> {
            g0.send(b0, 1 << 18, DataType.FLOAT32, 1, s0);               // 1 MiB: more than the FIFO holds
            assertThatThrownBy(() -> g1.recv(b1, 1 << 10, DataType.FLOAT32, 0, s1))
                    .isInstanceOf(JcclException.class)
                    .hasMessageContaining("receive 1 from rank 0 is 4096 bytes, but rank 0's send 1 to this rank is"
                            + " 1048576 bytes");
            long t0 = System.nanoTime();
            s0.synchronize();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("the sender's kernel stopped")
                    .isLessThan(Duration.ofSeconds(60));
            assertThat(g0.asyncError()).isNotNull().extracting(JcclException::result).isEqualTo(Result.INVALID_USAGE);
        });
    }

    @Test
    void aDifferentRootIsRefused() {
        withPair(4096, (g0, g1, s0, s1, b0, b1) -> {
            g1.broadcast(b1, b1, 100, DataType.INT32, 1, s1);
            assertThatThrownBy(() -> g0.broadcast(b0, b0, 100, DataType.INT32, 0, s0))
                    .isInstanceOf(JcclException.class)
                    .hasMessageContaining("Broadcast(count 100 int32 root 0)")
                    .hasMessageContaining("rank 1's call 1, Broadcast(count 100 int32 root 1)");
            s0.synchronize();
            s1.synchronize();
        });
    }

    interface PairBody {
        void run(GpuCommunicator g0, GpuCommunicator g1, CudaStream s0, CudaStream s1, DeviceBuffer b0,
                 DeviceBuffer b1);
    }

    /**
     * Two ranks with a 10-minute limit (a stopped kernel must stop because of the refusal, not time out), a stream
     * and a buffer of {@code bytes} each.
     */
    private static void withPair(long bytes, PairBody body) {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.twoGpus(),
                new Config(Duration.ofMinutes(10), 0, 0, null), GpuCollectivesGpuTest.smallOptions());
        GpuCommunicator g0 = comms.get(0);
        GpuCommunicator g1 = comms.get(1);
        try (CudaStream s0 = CudaStream.create(g0.device());
             CudaStream s1 = CudaStream.create(g1.device());
             DeviceBuffer b0 = DeviceBuffer.allocate(g0.device(), bytes);
             DeviceBuffer b1 = DeviceBuffer.allocate(g1.device(), bytes)) {
            body.run(g0, g1, s0, s1, b0, b1);
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }
}
