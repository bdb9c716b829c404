package io.jccl.cuda.testing;

import io.jccl.DataType;
import io.jccl.MemoryStats;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;

import java.lang.foreign.MemorySegment;

/**
 * One process-rank of the GPU suspend check (one GPU per process; peers through CUDA IPC, or with NCCL_HOSTID a host
 * each, through pinned FIFOs and the network proxy): a checked allReduce, then two rounds of suspend (device,
 * pinned and peer-mapped bytes must drop to zero), a refused call, resume and a checked allReduce, after which the
 * statistics must be what they were. Prints its numbers; exits 1 on any error.
 */
public final class GpuSuspendRankMain {
    private GpuSuspendRankMain() {
    }

    public static void main(String[] args) {
        int local = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
        CudaDevice device = CudaDevice.get(Boolean.getBoolean("jccl.cuda.shareDevices") ? 0 : local);
        boolean ok = false;
        try (GpuCommunicator g = GpuCommunicator.fromEnvironment(device)) {
            allReduce(g, 0);
            MemoryStats before = g.memoryStats();
            System.out.println("memory before: " + before.describe());
            if (System.getenv("NCCL_HOSTID") != null) {   // a host each: pinned FIFOs and mirrors, no IPC
                check(before.deviceBytes() > 0 && before.pinnedHostBytes() > 0, "no pinned FIFOs: " + before);
            } else {
                check(before.deviceBytes() > 0 && before.peerMappedBytes() >= before.deviceBytes(), "no IPC import: "
                        + before);
            }
            for (int cycle = 1; cycle <= 2; cycle++) {
                g.suspend();
                MemoryStats during = g.memoryStats();
                System.out.println("memory suspended: " + during.describe());
                check(during.suspended() && during.deviceBytes() == 0 && during.peerMappedBytes() == 0
                        && during.sharedBytes() == 0 && during.pinnedHostBytes() == 0, "suspended: " + during);
                try {
                    allReduce(g, -1);
                    check(false, "a call was not refused while suspended");
                } catch (io.jccl.JcclException e) {
                    check(e.getMessage().contains("suspended"), e.getMessage());
                }
                g.resume();
                allReduce(g, cycle);
                check(g.memoryStats().equals(before), "cycle " + cycle + ": " + g.memoryStats() + " after, "
                        + before + " before");
            }
            ok = g.asyncError() == null;
            System.out.println("rank " + g.rank() + " OK after 2 cycles");
        } catch (RuntimeException | AssertionError e) {
            e.printStackTrace(System.out);
        }
        System.exit(ok ? 0 : 1);
    }

    private static void allReduce(GpuCommunicator g, int salt) {
        int n = 20_000;
        float[] h = new float[n];
        for (int i = 0; i < n; i++) {
            h[i] = (g.rank() + 1) * (i % 7 + salt);
        }
        try (DeviceBuffer b = DeviceBuffer.allocate(g.device(), 4L * n); CudaStream s = CudaStream.create(g.device())) {
            b.copyFrom(MemorySegment.ofArray(h));
            g.allReduce(b, b, n, DataType.FLOAT32, RedOp.SUM, s);
            s.synchronize();
            b.copyTo(MemorySegment.ofArray(h));
        }
        float ranks = g.size() * (g.size() + 1) / 2f;
        for (int i = 0; i < n; i++) {
            check(h[i] == ranks * (i % 7 + salt), "element " + i + ": " + h[i]);
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
