package io.jccl.cuda.testing;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;

/**
 * One rank of the one-process-per-GPU fault tests, by the scenario in GPU_TEST_FAULT:
 * <ul>
 *   <li>{@code timeout}: rank 0 runs an allReduce that rank 1 never makes and synchronises its stream (its kernel
 *       must give up after JCCL_TIMEOUT_MS), printing {@code rank 0 TIMEOUT <message>}; rank 1 waits until rank 0 is
 *       surely done and prints its asyncError, rank 0's timeout (its kernels never waited, but the processes share
 *       the abort area);</li>
 *   <li>{@code mismatch} (with JCCL_CHECK_CALLS=1): rank r runs an allReduce of 1000 (r + 1) floats, which must be
 *       refused on both ranks, printing {@code rank r INVALID_USAGE <message>}; then both run a matching one;</li>
 *   <li>{@code mismatch-shared} (without it): the same calls; the rank that comes second is refused at the call,
 *       the other's kernel is stopped and its asyncError names both calls: each prints
 *       {@code rank r INVALID_USAGE <message>}, then {@code rank r next call <result>} for a later call;</li>
 *   <li>{@code abort}: rank 0 runs an allReduce that rank 1 never makes; rank 1 calls abort() a second later, which
 *       stops rank 0's kernel long before the limit: rank 0 prints {@code rank 0 ABORTED <message>};</li>
 *   <li>{@code crash}: the same, but rank 1's process halts a second later without closing anything: rank 0's host
 *       communicator finds rank 1 gone, which stops rank 0's kernel: it prints {@code rank 0 <result> <message>}; then
 *       it shrinks the communicator to itself and runs an allReduce there ({@code rank 0 shrunk to 1 rank(s), sum s});</li>
 *   <li>{@code window-crash} (ranks on two hosts): both open a window; rank 0 puts 1 MiB into rank 1's and waits
 *       for a signal of rank 1, whose process halts a second in: rank 0's wait is stopped, it prints
 *       {@code rank 0 <result> <message>} and how long it took, then closes the window (refused or not, it must
 *       return);</li>
 *   <li>{@code split} (no fault): the ranks split with keys reversed and run an allReduce on the new communicator
 *       (through CUDA IPC between the processes), printing {@code rank r split rank q sum s}, then on the parent.</li>
 * </ul>
 * Exits 1 when the expected error did not come or anything else throws.
 */
public final class GpuFaultRankMain {
    private GpuFaultRankMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        int local = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
        long limitMs = Long.parseLong(System.getenv().getOrDefault("JCCL_TIMEOUT_MS", "2000"));
        String fault = System.getenv().getOrDefault("GPU_TEST_FAULT", "timeout");
        boolean ok;
        // -Djccl.cuda.shareDevices=true: both processes on GPU 0 (no scenario needs the two kernels to run together)
        CudaDevice device = CudaDevice.get(Boolean.getBoolean("jccl.cuda.shareDevices") ? 0 : local);
        try (GpuCommunicator g = GpuCommunicator.fromEnvironment(device);
             CudaStream s = CudaStream.create(g.device());
             DeviceBuffer b = DeviceBuffer.allocate(g.device(), 1 << 16)) {
            if (fault.equals("split")) {
                try (GpuCommunicator sub = g.split(1, -g.rank())) {
                    float[] v = new float[1000];
                    java.util.Arrays.fill(v, g.rank() + 1);
                    b.copyFrom(java.lang.foreign.MemorySegment.ofArray(v));
                    sub.allReduce(b, b, v.length, DataType.FLOAT32, RedOp.SUM, s);
                    s.synchronize();
                    b.copyTo(java.lang.foreign.MemorySegment.ofArray(v));
                    ok = sub.asyncError() == null && sub.rank() == 1 - g.rank()
                            && v[0] == 3f && v[999] == 3f;
                    System.out.println("rank " + g.rank() + " split rank " + sub.rank() + " sum " + v[0]);
                }
                g.allReduce(b, b, 1000, DataType.FLOAT32, RedOp.SUM, s);
                s.synchronize();
                ok &= g.asyncError() == null;
            } else if (fault.equals("mismatch-shared")) {
                JcclException e;
                try {
                    g.allReduce(b, b, 1000L * (g.rank() + 1), DataType.FLOAT32, RedOp.SUM, s);
                    s.synchronize();
                    e = g.asyncError();
                } catch (JcclException thrown) {
                    e = thrown;
                }
                ok = e != null && e.result() == io.jccl.Result.INVALID_USAGE;
                System.out.println("rank " + g.rank() + " " + (e == null ? "no error" : e.result() + " " + e.getMessage()));
                try {
                    g.allReduce(b, b, 1000, DataType.FLOAT32, RedOp.SUM, s);
                    ok = false;
                    System.out.println("rank " + g.rank() + " next call launched");
                } catch (JcclException next) {
                    System.out.println("rank " + g.rank() + " next call " + next.result());
                }
            } else if (fault.equals("abort") || fault.equals("crash")) {
                if (g.rank() == 0) {
                    long t0 = System.nanoTime();
                    g.allReduce(b, b, 1 << 14, DataType.FLOAT32, RedOp.SUM, s);
                    s.synchronize();
                    JcclException e = g.asyncError();
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    ok = e != null && (fault.equals("crash") || e.result() == io.jccl.Result.ABORTED);
                    // one line per println (JCCL's log lines on stderr go to the same file)
                    System.out.println("rank 0 " + (e == null ? "no error" : e.result() + " " + e.getMessage()));
                    System.out.println("rank 0 stopped after " + ms + " ms");
                    if (fault.equals("crash")) {
                        try (GpuCommunicator left = g.shrink(g.host().lostRanks())) {
                            float[] v = {7f, 7f, 7f, 7f};
                            b.copyFrom(java.lang.foreign.MemorySegment.ofArray(v));
                            left.allReduce(b, b, v.length, DataType.FLOAT32, RedOp.SUM, s);
                            s.synchronize();
                            b.copyTo(java.lang.foreign.MemorySegment.ofArray(v));
                            ok &= left.asyncError() == null && v[3] == 7f;
                            System.out.println("rank 0 shrunk to " + left.size() + " rank(s), sum " + v[3]);
                        }
                    }
                } else {
                    Thread.sleep(1000);
                    if (fault.equals("crash")) {
                        System.out.println("rank 1 halts");
                        System.out.flush();
                        Runtime.getRuntime().halt(0);
                    }
                    g.abort();
                    ok = true;
                    System.out.println("rank 1 aborted");
                }
            } else if (fault.equals("window-crash")) {   // ranks on two hosts: a putSignal's peer dies
                io.jccl.cuda.GpuWindow w = g.allocateWindow(1 << 20);
                if (g.rank() == 0) {
                    long t0 = System.nanoTime();
                    try (DeviceBuffer src = DeviceBuffer.allocate(g.device(), 1 << 20)) {
                        g.putSignal(w, 0, src, 1 << 20, 1, 0, s);   // lands while rank 1 lives
                        g.waitSignal(w, 1, 0, 1, s);                // never comes: rank 1 halts
                        s.synchronize();
                    }
                    JcclException e = g.asyncError();
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    ok = e != null;
                    System.out.println("rank 0 " + (e == null ? "no error" : e.result() + " " + e.getMessage()));
                    System.out.println("rank 0 stopped after " + ms + " ms");
                    try {
                        w.close();
                        System.out.println("rank 0 window closed");
                    } catch (JcclException c) {
                        System.out.println("rank 0 window close " + c.result());
                    }
                } else {
                    Thread.sleep(1000);
                    System.out.println("rank 1 halts");
                    System.out.flush();
                    Runtime.getRuntime().halt(0);
                    ok = false;
                }
            } else if (fault.equals("hostgroup")) {   // JCCL_CHECK_CALLS=1: a GPU call inside a host group
                try (io.jccl.Group hostGroup = io.jccl.Jccl.group()) {
                    g.allReduce(b, b, 1000, DataType.FLOAT32, RedOp.SUM, s);
                    ok = false;
                    System.out.println("rank " + g.rank() + " no error");
                } catch (JcclException e) {
                    ok = e.result() == io.jccl.Result.INVALID_USAGE;
                    System.out.println("rank " + g.rank() + " " + e.result() + " " + e.getMessage());
                }
                g.allReduce(b, b, 1000, DataType.FLOAT32, RedOp.SUM, s);   // outside the group: compared and run
                s.synchronize();
                ok &= g.asyncError() == null;
                System.out.println("rank " + g.rank() + " then " + (g.asyncError() == null ? "ran" : g.asyncError()));
            } else if (fault.equals("mismatch")) {
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
