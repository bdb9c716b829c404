package io.jccl.cuda.testing;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;

/**
 * One rank of the one-process-per-GPU fault tests, by the scenario in JCCL_TEST_FAULT:
 * <ul>
 *   <li>{@code timeout}: rank 0 runs an allReduce that rank 1 never makes and synchronises its stream (its kernel
 *       must give up after JCCL_TIMEOUT_MS), printing {@code rank 0 TIMEOUT <message>}; rank 1 waits until rank 0 is
 *       surely done and prints its own asyncError (its kernels never waited);</li>
 *   <li>{@code mismatch} (with JCCL_CHECK_CALLS=1): rank r runs an allReduce of 1000 (r + 1) floats, which must be
 *       refused on both ranks, printing {@code rank r INVALID_USAGE <message>}; then both run a matching one.</li>
 * </ul>
 * Exits 1 when the expected error did not come or anything else throws.
 */
public final class GpuFaultRankMain {
    private GpuFaultRankMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        int local = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
        long limitMs = Long.parseLong(System.getenv().getOrDefault("JCCL_TIMEOUT_MS", "2000"));
        String fault = System.getenv().getOrDefault("JCCL_TEST_FAULT", "timeout");
        boolean ok;
        try (GpuCommunicator g = GpuCommunicator.fromEnvironment(CudaDevice.get(local));
             CudaStream s = CudaStream.create(g.device());
             DeviceBuffer b = DeviceBuffer.allocate(g.device(), 1 << 16)) {
            if (fault.equals("mismatch")) {
                try {
                    g.allReduce(b, b, 1000L * (g.rank() + 1), DataType.FLOAT32, RedOp.SUM, s);
                    ok = false;
                    System.out.println("rank " + g.rank() + " no error");
                } catch (JcclException e) {
                    ok = true;
                    System.out.println("rank " + g.rank() + " " + e.result() + " " + e.getMessage());
                }
                g.allReduce(b, b, 1000, DataType.FLOAT32, RedOp.SUM, s);
                s.synchronize();
                ok &= g.asyncError() == null;
            } else if (g.rank() == 0) {
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
