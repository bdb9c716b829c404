package io.jccl.internal.reduce;

/**
 * The two OCP 8-bit floating-point formats and their conversions to and from fp32.
 * <ul>
 *   <li>{@link #E4M3} (E4M3FN): bias 7, 3 mantissa bits, no infinities, {@code 0x7F}/{@code 0xFF} are NaN,
 *       largest finite 448, smallest subnormal 2^-9.</li>
 *   <li>{@link #E5M2}: bias 15, 2 mantissa bits, IEEE-like ({@code 0x7C} is infinity, {@code 0x7D..0x7F} NaN),
 *       largest finite 57344, smallest subnormal 2^-16.</li>
 * </ul>
 * Widening is exact. Narrowing rounds to nearest even with SATFINITE semantics, as CUDA's
 * {@code __nv_fp8_e4m3(float)} / {@code __nv_fp8_e5m2(float)} constructors do: magnitudes beyond the largest finite
 * value (infinities included) become ± the largest finite value, and every NaN becomes the canonical {@code 0x7F}.
 * {@link Fp8Reducer} holds the vector form of the same arithmetic, built from the constants here. Owned by: any
 * thread (immutable). Mirrors: {@code cuda_fp8.h}.
 */
final class Fp8 {
    static final Fp8 E4M3 = new Fp8("e4m3", 3, 7, 0x7E, -1);
    static final Fp8 E5M2 = new Fp8("e5m2", 2, 15, 0x7B, 0x7C);

    /** Every NaN narrows to this code. */
    static final int NAN_CODE = 0x7F;

    private final String name;
    final int mantissaBits;
    final int bias;
    /** The largest finite code (positive). */
    final int maxCode;
    /** The code of +infinity, or -1 when the format has none. */
    final int infCode;
    /** fp32 bits of the largest finite value. */
    final int maxFiniteBits;
    /** fp32 bits of the smallest normal value, 2^(1-bias). */
    final int minNormalBits;
    /** fp32 whose ulp is the smallest subnormal: adding it rounds onto the subnormal grid. */
    final float subnormalMagic;
    final int subnormalMagicBits;
    /** Bits dropped from an fp32 mantissa. */
    final int shift;
    /** Added to fp32 bits to move the exponent bias from 127 to this format's, plus half an ulp minus one. */
    final int rebiasRound;
    /** Exact fp32 value of every code. */
    private final float[] widenTable = new float[256];

    private Fp8(String name, int mantissaBits, int bias, int maxCode, int infCode) {
        this.name = name;
        this.mantissaBits = mantissaBits;
        this.bias = bias;
        this.maxCode = maxCode;
        this.infCode = infCode;
        this.shift = 23 - mantissaBits;
        this.rebiasRound = ((bias - 127) << 23) + (1 << (shift - 1)) - 1;
        this.minNormalBits = (128 - bias) << 23;
        this.subnormalMagicBits = (127 + 24 - bias - mantissaBits) << 23;
        this.subnormalMagic = Float.intBitsToFloat(subnormalMagicBits);
        for (int code = 0; code < 256; code++) {
            widenTable[code] = Float.intBitsToFloat(widenBits(code));
        }
        this.maxFiniteBits = Float.floatToRawIntBits(widenTable[maxCode]);
    }

    /** The fp32 bits of {@code code}, built the way the vector form builds them. */
    private int widenBits(int code) {
        int sign = (code & 0x80) << 24;
        int em = code & 0x7F;
        int bits;
        if (em > maxCode) {
            bits = em == infCode ? 0x7F80_0000 : 0x7FC0_0000;
        } else if (em < (1 << mantissaBits)) {
            float sub = Float.intBitsToFloat((em << shift) + minNormalBits) - Float.intBitsToFloat(minNormalBits);
            bits = Float.floatToRawIntBits(sub);
        } else {
            bits = (em << shift) + ((127 - bias) << 23);
        }
        return bits | sign;
    }

    String name() {
        return name;
    }

    /** The largest finite value. */
    float maxFinite() {
        return Float.intBitsToFloat(maxFiniteBits);
    }

    /** The largest finite code (positive). */
    int maxCode() {
        return maxCode;
    }

    /** The exact fp32 value of {@code code}. */
    float widen(byte code) {
        return widenTable[code & 0xFF];
    }

    /** {@code f} rounded to nearest even, saturated to ± the largest finite value; NaN gives {@link #NAN_CODE}. */
    byte narrow(float f) {
        int bits = Float.floatToRawIntBits(f);
        int a = bits & 0x7FFF_FFFF;
        if (a > 0x7F80_0000) {
            return (byte) NAN_CODE;
        }
        int r;
        if (a > maxFiniteBits) {
            r = maxCode;
        } else if (a < minNormalBits) {
            r = Float.floatToRawIntBits(Float.intBitsToFloat(a) + subnormalMagic) - subnormalMagicBits;
        } else {
            r = (a + rebiasRound + ((a >>> shift) & 1)) >>> shift;
        }
        return (byte) (r | ((bits >>> 24) & 0x80));
    }

    @Override
    public String toString() {
        return name;
    }
}
