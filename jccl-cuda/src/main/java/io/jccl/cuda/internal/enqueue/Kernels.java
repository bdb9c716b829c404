package io.jccl.cuda.internal.enqueue;

import io.jccl.DataType;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.internal.driver.CuModules;
import io.jccl.cuda.internal.kernels.KernelModules;

import java.lang.foreign.MemorySegment;

/**
 * One GPU's kernel functions, looked up once per (family, element type, operation class) and kept in an array, so
 * a launch costs an array read. Loading a module JIT-compiles its PTX for the GPU (about a second per module);
 * {@link #preload} does it ahead of time (CUDA graph capture must not be the first use).
 *
 * <p>Thread: the communicator's calling thread. Mirrors NCCL's kernel table lookup (ncclDevKernelForFunc).
 */
public final class Kernels {
    private static final int TYPES = DataType.values().length;
    private final CudaDevice device;
    private final MemorySegment[] functions = new MemorySegment[KernelFamily.values().length * TYPES * 2];
    /** Blocks of {@link CollPlanner#THREADS} threads that fit on one SM, per function; 0 = not asked yet. */
    private final int[] blocksPerSm = new int[functions.length];

    public Kernels(CudaDevice device) {
        this.device = device;
    }

    /** The function of {@code family} for {@code type} and operation class ({@code sumOnly}: sum, avg, preMulSum). */
    public MemorySegment get(KernelFamily family, DataType type, boolean sumOnly) {
        int idx = index(family, type, sumOnly);
        MemorySegment fn = functions[idx];
        if (fn == null) {
            fn = KernelModules.function(device, family.module(type, sumOnly), family.kernelName(type, sumOnly));
            functions[idx] = fn;
        }
        return fn;
    }

    /**
     * How many blocks of {@link CollPlanner#THREADS} threads of that function one multiprocessor holds at once
     * (cuOccupancyMaxActiveBlocksPerMultiprocessor: registers, shared memory), asked once.
     */
    public int blocksPerSm(KernelFamily family, DataType type, boolean sumOnly) {
        int idx = index(family, type, sumOnly);
        if (blocksPerSm[idx] == 0) {
            device.makeCurrent();
            blocksPerSm[idx] = Math.max(1, CuModules.maxActiveBlocksPerSm(get(family, type, sumOnly),
                    CollPlanner.THREADS, 0));
        }
        return blocksPerSm[idx];
    }

    private static int index(KernelFamily family, DataType type, boolean sumOnly) {
        int t = family.reduces() ? type.ordinal() : 0;
        return (family.ordinal() * TYPES + t) * 2 + (family.reduces() && sumOnly ? 1 : 0);
    }

    /** Loads every kernel a collective on {@code type} with this operation class can use, and the copy kernels. */
    public void preload(DataType type, boolean sumOnly) {
        for (KernelFamily f : KernelFamily.values()) {
            get(f, type, sumOnly);
        }
    }
}
