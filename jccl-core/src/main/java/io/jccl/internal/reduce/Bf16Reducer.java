package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * bfloat16 kernels: {@link NarrowFloatReducer}'s fp32 pipeline with {@link Bf16}'s conversions. The vector forms
 * widen by a 16-bit shift in int lanes and narrow with round-to-nearest-even in int lanes ({@link Simd#HALF}
 * shorts ⇄ fp32 lanes). For one add, multiply, min or max, computing in fp32 and rounding once gives the same bits
 * as native bf16 arithmetic (fp32 has more than 2p+2 bits). Owned by: whichever thread runs the primitive
 * (immutable). Mirrors: NCCL's {@code FuncSum<__nv_bfloat16>} and friends.
 */
final class Bf16Reducer extends NarrowFloatReducer {
    private static final ValueLayout.OfShort E = ValueLayout.JAVA_SHORT_UNALIGNED;

    Bf16Reducer(RedOp op, int nRanks, boolean vector) {
        super(DataType.BFLOAT16, op, nRanks, vector && Simd.HALF != null);
    }

    // The vector block loop lives in each narrow type's own class so that C2 compiles only this type's conversions
    // into it (see NarrowFloatReducer).

    @Override
    long binaryVector(Kernel k, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                      long n) {
        long end = Simd.F32.loopBound(n);
        float[][] t = scratch();
        float[] x = t[0];
        float[] y = t[1];
        for (long base = 0; base < end; base += BLOCK) {
            int m = (int) Math.min(BLOCK, end - base);
            long off = base * 2L;
            V.widenVector(a, ao + off, x, m);
            V.widenVector(b, bo + off, y, m);
            FloatBlocks.binary(k, x, y, m, scalar, divisor, true);
            V.narrowVector(x, d, dOff + off, m);
        }
        return end;
    }

    @Override
    long unaryVector(boolean divide, MemorySegment src, long so, MemorySegment d, long dOff, long n) {
        long end = Simd.F32.loopBound(n);
        float[] x = scratch()[0];
        for (long base = 0; base < end; base += BLOCK) {
            int m = (int) Math.min(BLOCK, end - base);
            long off = base * 2L;
            V.widenVector(src, so + off, x, m);
            FloatBlocks.unary(divide, x, m, scalar, divisor, true);
            V.narrowVector(x, d, dOff + off, m);
        }
        return end;
    }

    // The vector loops call only the JDK's (force-inlined) Vector API: a helper method of ours in the loop can be
    // left out of line by C2 when the loop's profile is thin, and every vector crossing it then gets boxed.

    /** The vector widening (a multiple of the f32 lane count; only with the Vector API). */
    void widenVector(MemorySegment src, long off, float[] dst, int n) {
        V.widenVector(src, off, dst, n);
    }

    /** The vector narrowing (a multiple of the f32 lane count; only with the Vector API). */
    void narrowVector(float[] src, MemorySegment dst, long off, int n) {
        V.narrowVector(src, dst, off, n);
    }

    @Override
    void widenScalar(MemorySegment src, long off, float[] dst, int n) {
        for (int i = 0; i < n; i++) {
            dst[i] = Bf16.widen(src.get(E, off + 2L * i));
        }
    }

    @Override
    void narrowScalar(float[] src, MemorySegment dst, long off, int n) {
        for (int i = 0; i < n; i++) {
            dst.set(E, off + 2L * i, Bf16.narrow(src[i]));
        }
    }

    /**
     * The vector kernels, apart so that they are loaded (and verified) only when the Vector API is present:
     * without it this class is never touched.
     */
    private static final class V {
        static final VectorSpecies<Short> S = Simd.HALF;
        static final int LANES = Simd.F32.length();

        private V() {
        }

        /** Widening: the bf16 bits, sign-extended into int lanes, shifted to the top half. */
        static void widenVector(MemorySegment src, long off, float[] dst, int n) {
            for (int i = 0; i < n; i += LANES) {
                ShortVector h = ShortVector.fromMemorySegment(S, src, off + 2L * i, Simd.ORDER);
                IntVector w = (IntVector) h.convertShape(VectorOperators.S2I, Simd.I32, 0);
                w.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().intoArray(dst, i);
            }
        }

        /**
         * Narrowing: {@link Bf16#narrow(float)} in int lanes (add 0x7FFF plus the lowest kept bit, shift; NaNs
         * quieted).
         */
        static void narrowVector(float[] src, MemorySegment dst, long off, int n) {
            for (int i = 0; i < n; i += LANES) {
                IntVector b = FloatVector.fromArray(Simd.F32, src, i).reinterpretAsInts();
                IntVector high = b.lanewise(VectorOperators.LSHR, 16);
                IntVector rounded = b.add(high.and(1)).add(0x7FFF).lanewise(VectorOperators.LSHR, 16);
                VectorMask<Integer> nan = b.and(0x7FFF_FFFF).compare(VectorOperators.GT, 0x7F80_0000);
                IntVector r = rounded.blend(high.or(0x0040), nan);
                r.convertShape(VectorOperators.I2S, S, 0).intoMemorySegment(dst, off + 2L * i, Simd.ORDER);
            }
        }
    }
}
