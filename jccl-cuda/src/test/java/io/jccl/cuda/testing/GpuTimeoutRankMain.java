package io.jccl.cuda.testing;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;

/**
 * One rank of the one-process-per-GPU timeout test: rank 0 runs an allReduce that rank 1 never makes, synchronises
 * its stream (its kernel must give up after JCCL_TIMEOUT_MS) and prints {@code rank 0 TIMEOUT <message>}; rank 1
 * waits until rank 0 is surely done and prints its own asyncError (its kernels never waited), and both close. Exits 1 when
 * rank 0 saw no timeout or anything throws.
 */
public final class GpuTimeoutRankMain {
    private GpuTimeoutRankMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        int local = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
        long limitMs = Long.parseLong(System.getenv().getOrDefault("JCCL_TIMEOUT_MS", "2000"));
        boolean ok;
        try (GpuCommunicator g = GpuCommunicator.fromEnvironment(CudaDevice.get(local));
             CudaStream s = CudaStream.create(g.device());
             DeviceBuffer b = DeviceBuffer.allocate(g.device(), 1 << 16)) {
            if (g.rank() == 0) {
                g.allReduce(b, b, 1 << 14, DataType.FLOAT32, RedOp.SUM, s);
                s.synchronize();
                JcclException e = g.asyncError();
                ok = e != null;
                System.out.println("rank 0 " + (e == null ? "no error" : e.result() + " " + e.getMessage()));
            } else {
                Thread.sleep(limitMs + 3000);
                JcclException e = g.asyncError();   // rank 0 may have closed by now: a host error, not a timeout
                ok = true;
                System.out.println("rank 1 asyncError " + (e == null ? "none" : e.result() + " " + e.getMessage()));
            }
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            ok = false;
        }
        System.exit(ok ? 0 : 1);
    }
}
