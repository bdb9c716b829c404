package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;

import java.lang.foreign.MemorySegment;

/**
 * Kernels for the types computed in fp32 and stored narrower (fp16, bf16, fp8): data moves in blocks of
 * {@link #BLOCK} elements through two thread-local fp32 scratch arrays — widen each source block, apply the op with
 * {@link FloatBlocks}, round the result once back into the destination. Small loops per step keep every hot loop
 * within C2's inlining budget: fusing two widenings, the op and a narrowing into one loop over memory segments runs
 * several times slower. Each subclass owns its vector block loop (so C2 never compiles two types' conversions into
 * one shared method, which also overflows that budget); the scalar pipeline (tails, or everything when vectors are
 * off) is shared here and gives the same bits.
 *
 * <p>Owned by: whichever thread runs the primitive (instances are immutable; scratch is per thread and allocated
 * once per thread). Mirrors: NCCL's half-precision and fp8 functors, which also convert, compute in fp32 and convert
 * back.
 */
abstract sealed class NarrowFloatReducer extends ReducerBase permits Bf16Reducer, Fp16Reducer, Fp8Reducer {
    /** Elements per block: a multiple of every fp32 lane count, small enough for two fp32 blocks to stay in L1. */
    static final int BLOCK = 1024;
    private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(() -> new float[2][BLOCK]);

    final int elementBytes;
    /** PRE_MUL_SUM's scalar in fp32. */
    final float scalar;
    /** nRanks in fp32, AVG's divisor. */
    final float divisor;

    NarrowFloatReducer(DataType type, RedOp op, int nRanks, boolean vector) {
        super(type, op, nRanks, vector);
        this.elementBytes = type.sizeBytes();
        this.scalar = (float) op.scalar();
        this.divisor = nRanks;
    }

    /** dst[0..n) = exact fp32 values of the n elements at {@code off}, one at a time. */
    abstract void widenScalar(MemorySegment src, long off, float[] dst, int n);

    /** Rounds src[0..n) into n elements at {@code off}, one at a time. */
    abstract void narrowScalar(float[] src, MemorySegment dst, long off, int n);

    /** The calling thread's two fp32 scratch blocks. */
    static float[][] scratch() {
        return SCRATCH.get();
    }

    @Override
    final void binaryScalar(Kernel k, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                            long from, long to) {
        float[][] t = scratch();
        float[] x = t[0];
        float[] y = t[1];
        for (long base = from; base < to; base += BLOCK) {
            int m = (int) Math.min(BLOCK, to - base);
            long off = base * elementBytes;
            widenScalar(a, ao + off, x, m);
            widenScalar(b, bo + off, y, m);
            FloatBlocks.binary(k, x, y, m, scalar, divisor, false);
            narrowScalar(x, d, dOff + off, m);
        }
    }

    @Override
    final void unaryScalar(boolean divide, MemorySegment src, long so, MemorySegment d, long dOff, long from,
                           long to) {
        float[] x = scratch()[0];
        for (long base = from; base < to; base += BLOCK) {
            int m = (int) Math.min(BLOCK, to - base);
            long off = base * elementBytes;
            widenScalar(src, so + off, x, m);
            FloatBlocks.unary(divide, x, m, scalar, divisor, false);
            narrowScalar(x, d, dOff + off, m);
        }
    }
}
