package io.jccl.examples;

import io.jccl.JcclException;
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
 * One-sided communication on GPUs (NCCL 2.29's {@code ncclPutSignal} / {@code ncclWaitSignal} on a window from
 * {@code ncclMemAlloc} + {@code ncclCommWindowRegister}): each process allocates a window with room for every
 * rank's block ({@link GpuCommunicator#allocateWindow}), puts its own block into the next rank's window with a
 * signal ({@link GpuCommunicator#putSignal}: a copy-engine copy, then the signal behind it), and waits on its stream
 * for the previous rank's signal ({@link GpuCommunicator#waitSignal}) before reading that rank's block. The next rank
 * makes no matching call, as in pipeline-parallel stage hand-offs.
 *
 * <pre>{@code ./jccl run -np 2 io.jccl.examples.PutSignalExample [N]}</pre>
 */
public final class PutSignalExample {
    private PutSignalExample() {
    }

    public static void main(String[] args) {
        if (!CudaDevice.isAvailable()) {
            System.out.println("ERROR: No CUDA devices found on this system");
            System.exit(1);
        }
        int count = Examples.intArg(args, 0, 1 << 20);
        CudaDevice device = CudaDevice.get(Launch.placement().localRankOr(0) % CudaDevice.count());
        boolean ok;
        try (GpuCommunicator comm = GpuCommunicator.fromEnvironment(device)) {
            ok = run(comm, count, System.out);
        } catch (JcclException e) {
            System.err.println("PutSignalExample: " + e.getMessage());
            ok = false;
        }
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    /** The example on {@code comm} with blocks of {@code count} floats; returns true when the block arrived whole. */
    public static boolean run(GpuCommunicator comm, int count, PrintStream out) {
        int rank = comm.rank();
        int size = comm.size();
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        long block = (long) count * Float.BYTES;
        try (Arena arena = Arena.ofConfined();
             CudaStream stream = CudaStream.create(comm.device());
             DeviceBuffer mine = DeviceBuffer.allocate(comm.device(), block);
             GpuWindow window = comm.allocateWindow(size * block)) {
            MemorySegment host = arena.allocate(block, 64);
            for (long i = 0; i < count; i++) {
                host.setAtIndex(ValueLayout.JAVA_FLOAT, i, rank + i % 7);
            }
            mine.copyFrom(host);
            int signal = 0;
            comm.putSignal(window, rank * block, mine, block, next, signal, stream);
            comm.waitSignal(window, prev, signal, 1, stream);
            window.buffer().slice(prev * block, block).copyToAsync(host, stream);
            stream.synchronize();
            JcclException error = comm.asyncError();   // a wait that passed the limit stops the kernels: ask
            if (error != null) {
                throw error;
            }
            for (long i = 0; i < count; i++) {
                float want = prev + i % 7;
                if (host.getAtIndex(ValueLayout.JAVA_FLOAT, i) != want) {
                    out.printf("Rank %d: element %d of rank %d's block is %.0f, not %.0f%n", rank, i, prev,
                            host.getAtIndex(ValueLayout.JAVA_FLOAT, i), want);
                    return false;
                }
            }
            out.printf("Rank %d received rank %d's block of %d floats through putSignal%n", rank, prev, count);
            // every rank has read its block before any window is freed: close() is collective
            return true;
        }
    }
}
