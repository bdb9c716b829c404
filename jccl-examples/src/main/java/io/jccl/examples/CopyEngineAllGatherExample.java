package io.jccl.examples;

import io.jccl.Collective;
import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.cuda.CtaPolicy;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.GpuOptions;
import io.jccl.cuda.GpuWindow;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Copy-engine collectives (NCCL 2.28's {@code NCCL_CTA_POLICY_ZERO}): a communicator made with
 * {@code GpuOptions.withCtaPolicy(CtaPolicy.ZERO)} runs an allGather whose receive buffer lies in a window
 * ({@link GpuCommunicator#allocateWindow}) on the copy engines, peer copies and stream memory operations, with no
 * kernel, so a training step's compute kernel beside it keeps every SM.
 * {@link GpuCommunicator#algorithmFor(Collective, long, DataType, RedOp, DeviceBuffer, DeviceBuffer)} says {@code ce}.
 * One process drives two GPUs, one thread per rank (making and closing a window is collective).
 *
 * <pre>{@code ./jccl run -np 1 io.jccl.examples.CopyEngineAllGatherExample [N]}</pre>
 */
public final class CopyEngineAllGatherExample {
    private CopyEngineAllGatherExample() {
    }

    public static void main(String[] args) {
        if (!CudaDevice.isAvailable() || CudaDevice.count() < 2) {
            System.out.println("ERROR: CopyEngineAllGatherExample needs 2 CUDA devices, this system has "
                    + (CudaDevice.isAvailable() ? CudaDevice.count() : 0));
            System.exit(1);
        }
        boolean ok;
        try {
            ok = run(List.of(CudaDevice.get(0), CudaDevice.get(1)), Examples.intArg(args, 0, 1 << 22), System.out);
        } catch (JcclException e) {
            System.err.println("CopyEngineAllGatherExample: " + e.getMessage());
            ok = false;
        }
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    /** An allGather of {@code count} floats per rank into a window on each of {@code devices}; true when right. */
    public static boolean run(List<CudaDevice> devices, int count, PrintStream out) {
        GpuOptions zero = GpuOptions.fromSystemProperties().withCtaPolicy(CtaPolicy.ZERO);
        List<GpuCommunicator> comms = GpuCommunicator.initAll(devices, Config.defaults(), zero);
        try (ExecutorService pool = Executors.newFixedThreadPool(comms.size())) {
            List<Future<Boolean>> ranks = new ArrayList<>();
            for (GpuCommunicator comm : comms) {
                ranks.add(pool.submit(() -> rank(comm, count, out)));
            }
            boolean ok = true;
            for (Future<Boolean> r : ranks) {
                ok &= r.get();
            }
            return ok;
        } catch (ExecutionException e) {
            throw e.getCause() instanceof JcclException j ? j : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    private static boolean rank(GpuCommunicator comm, int count, PrintStream out) {
        int rank = comm.rank();
        int size = comm.size();
        long bytes = (long) count * Float.BYTES;
        try (Arena arena = Arena.ofConfined();
             CudaStream stream = CudaStream.create(comm.device());
             DeviceBuffer send = DeviceBuffer.allocate(comm.device(), bytes);
             GpuWindow window = comm.allocateWindow(size * bytes)) {
            MemorySegment host = arena.allocate(size * bytes, 64);
            for (long i = 0; i < count; i++) {
                host.setAtIndex(ValueLayout.JAVA_FLOAT, i, rank * 1000 + i % 7);
            }
            send.copyFrom(host.asSlice(0, bytes));
            out.printf("Rank %d: allGather of %d floats per rank into a window runs %s%n", rank, count,
                    comm.algorithmFor(Collective.ALL_GATHER, count, DataType.FLOAT32, RedOp.SUM, send,
                            window.buffer()));
            comm.allGather(send, window.buffer(), count, DataType.FLOAT32, stream);
            window.buffer().copyToAsync(host, stream);
            stream.synchronize();
            JcclException error = comm.asyncError();
            if (error != null) {
                throw error;
            }
            for (long i = 0; i < (long) size * count; i++) {
                float want = (i / count) * 1000 + (i % count) % 7;
                if (host.getAtIndex(ValueLayout.JAVA_FLOAT, i) != want) {
                    out.printf("Rank %d: element %d is %.0f, not %.0f%n", rank, i,
                            host.getAtIndex(ValueLayout.JAVA_FLOAT, i), want);
                    return false;
                }
            }
            out.printf("Rank %d: every rank's %d floats arrived through the copy engines%n", rank, count);
            return true;   // close() of the window is collective: every rank has read its results
        }
    }
}
