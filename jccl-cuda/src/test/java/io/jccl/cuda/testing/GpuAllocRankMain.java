package io.jccl.cuda.testing;

import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;

import java.lang.management.ManagementFactory;

/**
 * One rank of the allocation check with one process per GPU: the issuing thread's heap allocation over rounds of
 * 25 allReduces and 25 broadcasts after warm-up, the quietest of 4 rounds, printed as
 * {@code rank r allocated N bytes over 50 launches}. Exits 1 on any error.
 */
public final class GpuAllocRankMain {
    private GpuAllocRankMain() {
    }

    public static void main(String[] args) throws ReflectiveOperationException {
        int local = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
        CudaDevice device = CudaDevice.get(Boolean.getBoolean("jccl.cuda.shareDevices") ? 0 : local);
        java.lang.reflect.Method allocated = Class.forName("com.sun.management.ThreadMXBean")
                .getMethod("getCurrentThreadAllocatedBytes");
        Object mx = ManagementFactory.getThreadMXBean();
        boolean ok;
        try (GpuCommunicator g = GpuCommunicator.fromEnvironment(device);
             CudaStream s = CudaStream.create(g.device());
             DeviceBuffer b = DeviceBuffer.allocate(g.device(), 1 << 16)) {
            long least = Long.MAX_VALUE;
            for (int round = 0; round < 8; round++) {
                long before = (long) allocated.invoke(mx);
                for (int i = 0; i < 25; i++) {
                    g.allReduce(b, b, 256, DataType.FLOAT32, RedOp.SUM, s);
                    g.broadcast(b, b, 4000, DataType.BFLOAT16, 1, s);
                }
                long bytes = (long) allocated.invoke(mx) - before;
                if (round >= 4) {   // the first rounds warm the JIT up
                    least = Math.min(least, bytes);
                }
                s.synchronize();
            }
            ok = g.asyncError() == null;
            System.out.println("rank " + g.rank() + " allocated " + least + " bytes over 50 launches"
                    + (ok ? "" : ", " + g.asyncError()));
        }
        System.exit(ok ? 0 : 1);
    }
}
