package io.jccl.internal.reduce;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

/**
 * IEEE binary16 (fp16) ⇄ fp32. The scalar forms are the JDK's {@link Float#float16ToFloat} and
 * {@link Float#floatToFloat16} (exact widening; round to nearest even, overflow to infinity). The vector forms
 * compute the same values with integer lane arithmetic (the Vector API has no fp16 conversion): they agree with the
 * scalar forms bit for bit on every non-NaN input, and map NaN to a quiet NaN with the same sign (payloads may
 * differ). Owned by: any thread (stateless). Mirrors: CUDA's {@code __float2half_rn} / {@code __half2float}.
 */
final class Fp16 {
    /** fp32 bits of 2^-14, the smallest normal fp16, used to rebuild subnormals. */
    private static final int MIN_NORMAL_BITS = 113 << 23;
    /** fp32 whose ulp is the smallest fp16 subnormal (2^-24): adding it rounds to a subnormal grid. */
    private static final float SUBNORMAL_MAGIC = 0.5f;
    private static final int SUBNORMAL_MAGIC_BITS = Float.floatToRawIntBits(SUBNORMAL_MAGIC);
    /** fp32 bits of 65536, from where on every value overflows fp16. */
    private static final int OVERFLOW_BITS = (127 + 16) << 23;

    private Fp16() {
    }

    static float widen(short bits) {
        return Float.float16ToFloat(bits);
    }

    static short narrow(float f) {
        return Float.floatToFloat16(f);
    }

    /** Lanewise widen; {@code v} has {@link Simd#HALF} species. */
    static FloatVector widen(ShortVector v) {
        IntVector h = (IntVector) v.convertShape(VectorOperators.S2I, Simd.I32, 0);
        IntVector sign = h.and(0x8000).lanewise(VectorOperators.LSHL, 16);
        IntVector magnitude = h.and(0x7FFF).lanewise(VectorOperators.LSHL, 13);
        IntVector exponent = magnitude.and(0x0F80_0000);
        IntVector normal = magnitude.add((127 - 15) << 23);
        VectorMask<Integer> special = exponent.compare(VectorOperators.EQ, 0x0F80_0000);
        VectorMask<Integer> small = exponent.compare(VectorOperators.EQ, 0);
        IntVector infNan = normal.add((128 - 16) << 23);
        // Subnormal or zero: put the mantissa under exponent 2^-14, then subtract 2^-14 (exact).
        IntVector sub = normal.add(1 << 23).reinterpretAsFloats()
                .sub(Float.intBitsToFloat(MIN_NORMAL_BITS)).reinterpretAsInts();
        IntVector r = normal.blend(infNan, special).blend(sub, small);
        return r.or(sign).reinterpretAsFloats();
    }

    /** Lanewise narrow (round to nearest even); the result has {@link Simd#HALF} species. */
    static ShortVector narrow(FloatVector f) {
        IntVector bits = f.reinterpretAsInts();
        IntVector sign = bits.and(0x8000_0000).lanewise(VectorOperators.LSHR, 16);
        IntVector a = bits.and(0x7FFF_FFFF);
        // Normal range: rebias, then round to nearest even on the 13 dropped bits.
        IntVector odd = a.lanewise(VectorOperators.LSHR, 13).and(1);
        IntVector normal = a.add(((15 - 127) << 23) + 0xFFF).add(odd).lanewise(VectorOperators.LSHR, 13);
        // Subnormal range: let the fp32 adder round onto the 2^-24 grid.
        IntVector sub = a.reinterpretAsFloats().add(SUBNORMAL_MAGIC).reinterpretAsInts().sub(SUBNORMAL_MAGIC_BITS);
        IntVector nan = a.lanewise(VectorOperators.LSHR, 13).and(0x3FF).or(0x7E00);
        IntVector r = normal.blend(sub, a.compare(VectorOperators.LT, MIN_NORMAL_BITS))
                .blend(0x7C00, a.compare(VectorOperators.GE, OVERFLOW_BITS))
                .blend(nan, a.compare(VectorOperators.GT, 0x7F80_0000));
        return (ShortVector) r.or(sign).convertShape(VectorOperators.I2S, Simd.HALF, 0);
    }
}
