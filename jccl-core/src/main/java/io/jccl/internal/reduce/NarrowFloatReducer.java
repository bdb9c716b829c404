package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;

import java.lang.foreign.MemorySegment;

/**
 * Kernels for the types computed in fp32 and stored narrower (fp16, bf16, fp8): data moves in blocks of
 * {@link #BLOCK} elements through two thread-local fp32 scratch arrays — widen each source block, apply the op with
 * {@link FloatBlocks}, round the result once back into the destination. Subclasses supply only the four block
 * conversions (vector and scalar, widen and narrow), which keeps every hot loop small: fusing two widenings, the op
 * and a narrowing into one loop over memory segments exceeds C2's inlining budget and runs several times slower.
 * The vector path covers the longest prefix that fills whole fp32 vectors; the scalar path (tail, or everything when
 * vectors are off) runs the same pipeline with scalar loops, so both give the same bits.
 *
 * <p>Owned by: whichever thread runs the primitive (instances are immutable; scratch is per thread and allocated
 * once per thread). Mirrors: NCCL's half-precision and fp8 functors, which also convert, compute in fp32 and convert
 * back.
 */
abstract sealed class NarrowFloatReducer extends ReducerBase permits Bf16Reducer, Fp16Reducer, Fp8Reducer {
    /** Elements per block: a multiple of every fp32 lane count, small enough for two fp32 blocks to stay in L1. */
    static final int BLOCK = 1024;
    private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(() -> new float[2][BLOCK]);

    private final int elementBytes;
    private final float scalar;
    private final float divisor;

    NarrowFloatReducer(DataType type, RedOp op, int nRanks, boolean vector) {
        super(type, op, nRanks, vector);
        this.elementBytes = type.sizeBytes();
        this.scalar = (float) op.scalar();
        this.divisor = nRanks;
    }

    /** dst[0..n) = exact fp32 values of n elements at {@code off}; n is a multiple of the fp32 lane count. */
    abstract void widenVector(MemorySegment src, long off, float[] dst, int n);

    /** Rounds src[0..n) into n elements at {@code off}; n is a multiple of the fp32 lane count. */
    abstract void narrowVector(float[] src, MemorySegment dst, long off, int n);

    /** {@link #widenVector} one element at a time, any n. */
    abstract void widenScalar(MemorySegment src, long off, float[] dst, int n);

    /** {@link #narrowVector} one element at a time, any n. */
    abstract void narrowScalar(float[] src, MemorySegment dst, long off, int n);

    @Override
    final long binaryVector(Kernel k, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                            long n) {
        long end = Simd.F32.loopBound(n);
        binaryBlocks(k, a, ao, b, bo, d, dOff, 0, end, true);
        return end;
    }

    @Override
    final void binaryScalar(Kernel k, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                            long from, long n) {
        binaryBlocks(k, a, ao, b, bo, d, dOff, from, n, false);
    }

    @Override
    final long unaryVector(boolean divide, MemorySegment x, long xo, MemorySegment d, long dOff, long n) {
        long end = Simd.F32.loopBound(n);
        unaryBlocks(divide, x, xo, d, dOff, 0, end, true);
        return end;
    }

    @Override
    final void unaryScalar(boolean divide, MemorySegment x, long xo, MemorySegment d, long dOff, long from, long n) {
        unaryBlocks(divide, x, xo, d, dOff, from, n, false);
    }

    private void binaryBlocks(Kernel k, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d,
                              long dOff, long from, long to, boolean vec) {
        float[][] scratch = SCRATCH.get();
        float[] x = scratch[0];
        float[] y = scratch[1];
        for (long base = from; base < to; base += BLOCK) {
            int m = (int) Math.min(BLOCK, to - base);
            long off = base * elementBytes;
            if (vec) {
                widenVector(a, ao + off, x, m);
                widenVector(b, bo + off, y, m);
            } else {
                widenScalar(a, ao + off, x, m);
                widenScalar(b, bo + off, y, m);
            }
            FloatBlocks.binary(k, x, y, m, scalar, divisor, vec);
            if (vec) {
                narrowVector(x, d, dOff + off, m);
            } else {
                narrowScalar(x, d, dOff + off, m);
            }
        }
    }

    private void unaryBlocks(boolean divide, MemorySegment src, long so, MemorySegment d, long dOff, long from, long to,
                             boolean vec) {
        float[] x = SCRATCH.get()[0];
        for (long base = from; base < to; base += BLOCK) {
            int m = (int) Math.min(BLOCK, to - base);
            long off = base * elementBytes;
            if (vec) {
                widenVector(src, so + off, x, m);
            } else {
                widenScalar(src, so + off, x, m);
            }
            FloatBlocks.unary(divide, x, m, scalar, divisor, vec);
            if (vec) {
                narrowVector(x, d, dOff + off, m);
            } else {
                narrowScalar(x, d, dOff + off, m);
            }
        }
    }
}
