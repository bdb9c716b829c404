package io.jccl.examples;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.GpuWindow;
import io.jccl.launch.Launch;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Symmetric kernels (NCCL 2.27's kernels on windows from {@code ncclMemAlloc} + {@code ncclCommWindowRegister}):
 * each process allocates a window ({@link GpuCommunicator#allocateWindow}) and runs an allReduce and an allGather
 * whose buffers lie in it; the kernels then read the peers' windows in place, with one process per GPU too.
 * {@link GpuCommunicator#algorithmFor(Collective, long, DataType, RedOp, DeviceBuffer, DeviceBuffer)} shows the
 * choice ({@code sym-...} on windows, the communicator's own kernels otherwise).
 *
 * <pre>{@code ./jccl run -np 2 io.jccl.examples.SymmetricAllReduceExample [N]}</pre>
 */
public final class SymmetricAllReduceExample {
    private SymmetricAllReduceExample() {
    }

    public static void main(String[] args) {
        if (!CudaDevice.isAvailable()) {
            System.out.println("ERROR: No CUDA devices found on this system");
            System.exit(1);
        }
        int count = Examples.intArg(args, 0, 1 << 22);   // 16 MiB: above the LL sizes, the two-shot's size
        CudaDevice device = CudaDevice.get(Launch.placement().localRankOr(0) % CudaDevice.count());
        boolean ok;
        try (GpuCommunicator comm = GpuCommunicator.fromEnvironment(device)) {
            ok = run(comm, count, System.out);
        } catch (JcclException e) {
            System.err.println("SymmetricAllReduceExample: " + e.getMessage());
            ok = false;
        }
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    /**
     * An allReduce of {@code count} floats in place in a window, then an allGather of them into the rest of it;
     * returns true when both came back right.
     */
    public static boolean run(GpuCommunicator comm, int count, PrintStream out) {
        int rank = comm.rank();
        int size = comm.size();
        long bytes = (long) count * Float.BYTES;
        try (Arena arena = Arena.ofConfined();
             CudaStream stream = CudaStream.create(comm.device());
             GpuWindow window = comm.allocateWindow((1 + size) * bytes)) {
            DeviceBuffer data = window.buffer().slice(0, bytes);
            DeviceBuffer gathered = window.buffer().slice(bytes, size * bytes);
            MemorySegment host = arena.allocate(size * bytes, 64);
            for (long i = 0; i < count; i++) {
                host.setAtIndex(ValueLayout.JAVA_FLOAT, i, rank + 1 + i % 3);
            }
            data.copyFrom(host.asSlice(0, bytes));
            out.printf("Rank %d: allReduce of %d floats runs %s%n", rank, count, comm.algorithmFor(
                    Collective.ALL_REDUCE, count, DataType.FLOAT32, RedOp.SUM, data, data));
            comm.allReduce(data, data, count, DataType.FLOAT32, RedOp.SUM, stream);
            comm.allGather(data, gathered, count, DataType.FLOAT32, stream);
            gathered.copyToAsync(host, stream);
            stream.synchronize();
            JcclException error = comm.asyncError();
            if (error != null) {
                throw error;
            }
            for (long i = 0; i < (long) size * count; i++) {
                long k = i % count;
                float want = size * (size + 1) / 2f + size * (k % 3);
                if (host.getAtIndex(ValueLayout.JAVA_FLOAT, i) != want) {
                    out.printf("Rank %d: element %d is %.0f, not %.0f%n", rank, i,
                            host.getAtIndex(ValueLayout.JAVA_FLOAT, i), want);
                    return false;
                }
            }
            out.printf("Rank %d: the sum of %d ranks' %d floats is right, on every rank, through the windows%n",
                    rank, size, count);
            return true;   // close() of the window is collective: every rank has read its results
        }
    }
}
