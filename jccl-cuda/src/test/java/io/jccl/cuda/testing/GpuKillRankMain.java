package io.jccl.cuda.testing;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;

import java.lang.foreign.MemorySegment;

/**
 * One rank of the kill campaign across hosts: checked allReduces of GPU_TEST_COUNT floats in a loop until one fails.
 * Rank r contributes (r + 1)·k to call k's every element, so each element must come back as k·n(n+1)/2; a mismatch
 * prints {@code WRONG}. It prints {@code READY} after its first checked call, and when a call fails
 * {@code FAILED rank r after c calls, m ms into the call: <result> <message>}, then closes the communicator and
 * exits 0; the campaign kills one rank and times the others.
 */
public final class GpuKillRankMain {
    private GpuKillRankMain() {
    }

    public static void main(String[] args) {
        int local = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
        int count = Integer.parseInt(System.getenv().getOrDefault("GPU_TEST_COUNT", "65536"));
        CudaDevice device = CudaDevice.get(Boolean.getBoolean("jccl.cuda.shareDevices") ? 0 : local);
        boolean ok = true;
        try (GpuCommunicator g = GpuCommunicator.fromEnvironment(device);
             CudaStream s = CudaStream.create(g.device());
             DeviceBuffer b = DeviceBuffer.allocate(g.device(), 4L * count)) {
            int n = g.size();
            float[] v = new float[count];
            MemorySegment host = MemorySegment.ofArray(v);
            for (int call = 1; ; call++) {
                int k = call % 64 + 1;
                java.util.Arrays.fill(v, (g.rank() + 1f) * k);
                b.copyFrom(host);
                long t0 = System.nanoTime();
                JcclException e;
                try {
                    g.allReduce(b, b, count, DataType.FLOAT32, RedOp.SUM, s);
                    s.synchronize();
                    e = g.asyncError();
                } catch (JcclException thrown) {
                    e = thrown;
                }
                if (e != null) {
                    System.out.println("FAILED rank " + g.rank() + " after " + (call - 1) + " calls, "
                            + (System.nanoTime() - t0) / 1_000_000 + " ms into the call: " + e.result() + " "
                            + e.getMessage().replace('\n', ' '));
                    break;
                }
                b.copyTo(host);
                float want = k * n * (n + 1) / 2f;
                for (int i = 0; i < count; i++) {
                    if (v[i] != want) {
                        System.out.println("WRONG rank " + g.rank() + " call " + call + " element " + i + ": "
                                + v[i] + ", not " + want);
                        ok = false;
                        break;
                    }
                }
                if (call == 1) {
                    System.out.println("READY rank " + g.rank());
                }
            }
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            ok = false;
        }
        System.out.println("EXIT rank " + local);
        System.exit(ok ? 0 : 1);
    }
}
