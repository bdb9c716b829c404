package io.jccl.cuda.internal.enqueue;

import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.internal.driver.CuModules;
import io.jccl.cuda.internal.driver.LaunchConfig;
import io.jccl.cuda.internal.kernels.KernelModules;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;

/**
 * The compute kernel {@code jccl perf --compute-beside} runs beside the collectives ({@code jccl_compute_probe}:
 * FMA chains in registers, no memory traffic), launched as one full wave of blocks: as many blocks of
 * {@link #THREADS} threads as every multiprocessor holds at once. Its time alone against its time beside a collective
 * tells how many SMs the collective took from compute ({@code NCCL_CTA_POLICY=2} should take none).
 *
 * <p>Thread: one caller at a time (the perf rank thread of its GPU). Not part of NCCL; it stands in for the training
 * step's kernels that NCCL's copy-engine collectives are meant to leave every SM to.
 */
public final class ComputeProbe implements AutoCloseable {
    /** Threads per block. */
    public static final int THREADS = 256;

    private final CudaDevice device;
    private final MemorySegment fn;
    private final Arena arena = Arena.ofShared();
    private final KernelArgs args;
    private final LaunchConfig config;
    private final int blocks;

    /** Loads the kernel on {@code device} and sizes its wave. */
    public ComputeProbe(CudaDevice device) {
        this.device = device;
        this.fn = KernelModules.function(device, "copy", "jccl_compute_probe");   // in copy.ptx
        device.makeCurrent();
        this.blocks = device.multiprocessorCount() * Math.max(1, CuModules.maxActiveBlocksPerSm(fn, THREADS, 0));
        this.args = new KernelArgs(arena.allocate(KernelArgs.LAYOUT), arena.allocate(ADDRESS));
        this.config = new LaunchConfig(arena);
    }

    /** The GPU it runs on. */
    public CudaDevice device() {
        return device;
    }

    /** Blocks per launch: one full wave on this GPU. */
    public int blocks() {
        return blocks;
    }

    /** Enqueues one run of {@code rounds} rounds of eight FMAs per thread on {@code stream}. */
    public void launch(CudaStream stream, long rounds) {
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds must be at least 1, got " + rounds);
        }
        args.setCall(0, 0, 0, rounds, 0, 0, 0, 0, 0, 0);
        device.makeCurrent();
        CuModules.launch(fn, config.set(blocks, THREADS, 0, stream.handle(), false), args.params());
    }

    @Override
    public void close() {
        arena.close();
    }
}
