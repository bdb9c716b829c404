package io.jccl.cuda;

import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.RedOp;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Launching a GPU collective allocates nothing on the Java heap in steady state (argument checks, the call check,
 * planning, the kernel arguments and the launch itself): the issuing thread's allocation counter over 200 launches
 * (allReduce and broadcast on two ranks) after warm-up, the quietest of 8 rounds. Needs 2 GPUs, one GPU with
 * {@code -Djccl.cuda.shareDevices=true}, or the CPU emulator.
 */
@Tag("gpu")
class GpuAllocationGpuTest {
    /**
     * Bytes tolerated per round: reading the counter itself costs about 830 (the same with 200 or 400 launches on
     * the emulator); 200 launches of 8 bytes each would pass it.
     */
    private static final long BOUND = 2048;
    private static final int CALLS = 50;

    /** com.sun.management.ThreadMXBean's per-thread counter, reflectively (the module does not read jdk.management). */
    private static final java.lang.reflect.Method ALLOCATED;

    static {
        try {
            ALLOCATED = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** This thread's allocated bytes. */
    private static long allocatedBytes() {
        try {
            return (long) ALLOCATED.invoke(ManagementFactory.getThreadMXBean());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void launchingCollectivesAllocatesNothing() {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.gpus(2), Config.defaults(),
                GpuCollectivesGpuTest.smallOptions());
        try (CudaStream s0 = CudaStream.create(comms.get(0).device());
             CudaStream s1 = CudaStream.create(comms.get(1).device());
             DeviceBuffer b0 = DeviceBuffer.allocate(comms.get(0).device(), 1 << 16);
             DeviceBuffer b1 = DeviceBuffer.allocate(comms.get(1).device(), 1 << 16)) {
            GpuCommunicator g0 = comms.get(0);
            GpuCommunicator g1 = comms.get(1);
            long least = Long.MAX_VALUE;
            for (int round = 0; round < 12; round++) {
                long before = allocatedBytes();
                for (int i = 0; i < CALLS; i++) {
                    g0.allReduce(b0, b0, 256, DataType.FLOAT32, RedOp.SUM, s0);
                    g1.allReduce(b1, b1, 256, DataType.FLOAT32, RedOp.SUM, s1);
                    g0.broadcast(b0, b0, 4000, DataType.BFLOAT16, 1, s0);
                    g1.broadcast(b1, b1, 4000, DataType.BFLOAT16, 1, s1);
                }
                long allocated = allocatedBytes() - before;
                if (round >= 4) {   // the first rounds warm the JIT up
                    least = Math.min(least, allocated);
                }
                s0.synchronize();
                s1.synchronize();
            }
            assertThat(g0.asyncError()).isNull();
            assertThat(least).as("bytes allocated over %d launches", 4 * CALLS).isLessThanOrEqualTo(BOUND);
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }
}
