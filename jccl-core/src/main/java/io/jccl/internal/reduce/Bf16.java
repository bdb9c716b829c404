package io.jccl.internal.reduce;


/**
 * bfloat16 ⇄ fp32: widening is exact (the bf16 bits are the top half of an fp32); narrowing rounds to nearest even,
 * overflows to infinity as IEEE rounding does, and keeps NaNs NaN (sign and top payload bits kept, quiet bit set).
 * {@link Bf16Reducer} holds the vector form of the same arithmetic. Owned by: any thread (stateless). Mirrors: CUDA's
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
}
