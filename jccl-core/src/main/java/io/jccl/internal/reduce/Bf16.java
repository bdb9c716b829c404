package io.jccl.internal.reduce;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

/**
 * bfloat16 ⇄ fp32: widening is exact (the bf16 bits are the top half of an fp32); narrowing rounds to nearest even,
 * overflows to infinity as IEEE rounding does, and keeps NaNs NaN (sign and top payload bits kept, quiet bit set).
 * Scalar and vector forms give identical bits. Owned by: any thread (stateless). Mirrors: CUDA's
 * {@code __float2bfloat16_rn} / {@code __bfloat162float}.
 */
final class Bf16 {
    private Bf16() {
    }

    /** The fp32 value of bf16 {@code bits} (exact). */
    static float widen(short bits) {
        return Float.intBitsToFloat(bits << 16);
    }

    /** {@code f} rounded to nearest even bf16. */
    static short narrow(float f) {
        int b = Float.floatToRawIntBits(f);
        if ((b & 0x7FFF_FFFF) > 0x7F80_0000) {
            return (short) ((b >>> 16) | 0x0040);
        }
        return (short) ((b + 0x7FFF + ((b >>> 16) & 1)) >>> 16);
    }

    /** Lanewise {@link #widen(short)}; {@code v} has {@link Simd#HALF} species. */
    static FloatVector widen(ShortVector v) {
        IntVector i = (IntVector) v.convertShape(VectorOperators.S2I, Simd.I32, 0);
        return i.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }

    /** Lanewise {@link #narrow(float)}; the result has {@link Simd#HALF} species. */
    static ShortVector narrow(FloatVector f) {
        IntVector b = f.reinterpretAsInts();
        IntVector high = b.lanewise(VectorOperators.LSHR, 16);
        IntVector rounded = b.add(high.and(1)).add(0x7FFF).lanewise(VectorOperators.LSHR, 16);
        VectorMask<Integer> nan = b.and(0x7FFF_FFFF).compare(VectorOperators.GT, 0x7F80_0000);
        IntVector r = rounded.blend(high.or(0x0040), nan);
        return (ShortVector) r.convertShape(VectorOperators.I2S, Simd.HALF, 0);
    }
}
