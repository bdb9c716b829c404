package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * fp8 (e4m3 and e5m2) kernels: {@link NarrowFloatReducer}'s fp32 pipeline with {@link Fp8}'s conversions (exact
 * widening; round to nearest even, saturating to the largest finite value, NaN to {@code 0x7F}). Vector forms
 * convert {@link Simd#QUARTER} bytes ⇄ fp32 lanes in int arithmetic; scalar widening is a table lookup. Owned by:
 * whichever thread runs the primitive (immutable). Mirrors: NCCL's {@code FuncSum<__nv_fp8_e4m3>} /
 * {@code <__nv_fp8_e5m2>} and friends.
 */
final class Fp8Reducer extends NarrowFloatReducer {
    private static final ValueLayout.OfByte E = ValueLayout.JAVA_BYTE;

    private final Fp8 fmt;

    Fp8Reducer(DataType type, RedOp op, int nRanks, boolean vector) {
        super(type, op, nRanks, vector && Simd.QUARTER != null);
        this.fmt = type == DataType.FLOAT8_E4M3 ? Fp8.E4M3 : Fp8.E5M2;
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
            long off = base;
            V.widenVector(fmt, a, ao + off, x, m);
            V.widenVector(fmt, b, bo + off, y, m);
            FloatBlocks.binary(k, x, y, m, scalar, divisor, true);
            V.narrowVector(fmt, x, d, dOff + off, m);
        }
        return end;
    }

    @Override
    long unaryVector(boolean divide, MemorySegment src, long so, MemorySegment d, long dOff, long n) {
        long end = Simd.F32.loopBound(n);
        float[] x = scratch()[0];
        for (long base = 0; base < end; base += BLOCK) {
            int m = (int) Math.min(BLOCK, end - base);
            long off = base;
            V.widenVector(fmt, src, so + off, x, m);
            FloatBlocks.unary(divide, x, m, scalar, divisor, true);
            V.narrowVector(fmt, x, d, dOff + off, m);
        }
        return end;
    }

    // The vector loops call only the JDK's (force-inlined) Vector API, with the format's constants in locals: a
    // helper method of ours in the loop can be left out of line by C2, and every vector crossing it then gets boxed.

    /** The vector widening (a multiple of the f32 lane count; only with the Vector API). */
    void widenVector(MemorySegment src, long off, float[] dst, int n) {
        V.widenVector(fmt, src, off, dst, n);
    }

    /** The vector narrowing (a multiple of the f32 lane count; only with the Vector API). */
    void narrowVector(float[] src, MemorySegment dst, long off, int n) {
        V.narrowVector(fmt, src, dst, off, n);
    }

    @Override
    void widenScalar(MemorySegment src, long off, float[] dst, int n) {
        Fp8 f = fmt;
        for (int i = 0; i < n; i++) {
            dst[i] = f.widen(src.get(E, off + i));
        }
    }

    @Override
    void narrowScalar(float[] src, MemorySegment dst, long off, int n) {
        Fp8 f = fmt;
        for (int i = 0; i < n; i++) {
            dst.set(E, off + i, f.narrow(src[i]));
        }
    }

    /**
     * The vector kernels, apart so that they are loaded (and verified) only when the Vector API is present:
     * without it this class is never touched.
     */
    private static final class V {
        static final VectorSpecies<Byte> S = Simd.QUARTER;
        static final int LANES = Simd.F32.length();

        private V() {
        }

        /**
         * Widening in int lanes: normal codes rebias their exponent; subnormals are placed under the smallest normal
         * exponent and that power of two subtracted (exact); codes above the largest finite become NaN or infinity.
         */
        static void widenVector(Fp8 fmt, MemorySegment src, long off, float[] dst, int n) {
            int shift = fmt.shift;
            int rebias = (127 - fmt.bias) << 23;
            int minNormalBits = fmt.minNormalBits;
            float minNormal = Float.intBitsToFloat(minNormalBits);
            int smallestNormalCode = 1 << fmt.mantissaBits;
            int maxCode = fmt.maxCode;
            int infCode = fmt.infCode;
            for (int i = 0; i < n; i += LANES) {
                ByteVector codes = ByteVector.fromMemorySegment(S, src, off + i, Simd.ORDER);
                IntVector b = (IntVector) codes.convertShape(VectorOperators.ZERO_EXTEND_B2I, Simd.I32, 0);
                IntVector em = b.and(0x7F);
                IntVector placed = em.lanewise(VectorOperators.LSHL, shift);
                IntVector normal = placed.add(rebias);
                IntVector sub = placed.add(minNormalBits).reinterpretAsFloats().sub(minNormal).reinterpretAsInts();
                IntVector special = IntVector.broadcast(Simd.I32, 0x7FC0_0000)
                        .blend(0x7F80_0000, em.compare(VectorOperators.EQ, infCode));
                IntVector r = normal.blend(sub, em.compare(VectorOperators.LT, smallestNormalCode))
                        .blend(special, em.compare(VectorOperators.GT, maxCode));
                r.or(b.and(0x80).lanewise(VectorOperators.LSHL, 24)).reinterpretAsFloats().intoArray(dst, i);
            }
        }

        /**
         * Narrowing in int lanes, as {@link Fp8#narrow(float)}: rebias and round to nearest even on the dropped bits;
         * below the smallest normal let the fp32 adder round onto the subnormal grid; saturate; NaN to {@code 0x7F}.
         */
        static void narrowVector(Fp8 fmt, float[] src, MemorySegment dst, long off, int n) {
            int shift = fmt.shift;
            int rebiasRound = fmt.rebiasRound;
            int minNormalBits = fmt.minNormalBits;
            float magic = fmt.subnormalMagic;
            int magicBits = fmt.subnormalMagicBits;
            int maxCode = fmt.maxCode;
            int maxFiniteBits = fmt.maxFiniteBits;
            for (int i = 0; i < n; i += LANES) {
                IntVector bits = FloatVector.fromArray(Simd.F32, src, i).reinterpretAsInts();
                IntVector a = bits.and(0x7FFF_FFFF);
                IntVector normal = a.add(rebiasRound).add(a.lanewise(VectorOperators.LSHR, shift).and(1))
                        .lanewise(VectorOperators.LSHR, shift);
                IntVector sub = a.reinterpretAsFloats().add(magic).reinterpretAsInts().sub(magicBits);
                IntVector r = normal.blend(sub, a.compare(VectorOperators.LT, minNormalBits))
                        .blend(maxCode, a.compare(VectorOperators.GT, maxFiniteBits))
                        .or(bits.lanewise(VectorOperators.LSHR, 24).and(0x80))
                        .blend(Fp8.NAN_CODE, a.compare(VectorOperators.GT, 0x7F80_0000));
                r.convertShape(VectorOperators.I2B, S, 0).intoMemorySegment(dst, off + i, Simd.ORDER);
            }
        }
    }
}
