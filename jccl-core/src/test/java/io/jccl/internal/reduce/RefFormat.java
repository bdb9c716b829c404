package io.jccl.internal.reduce;

/**
 * A slow, independent model of the narrow float formats for tests: decoding from the bit fields, and exact
 * rounding of a double with {@link Math#rint} on a power-of-two grid. Shares no code with the kernels.
 */
enum RefFormat {
    FP16(16, 10, 15, false),
    BF16(16, 7, 127, false),
    E4M3(8, 3, 7, true),
    E5M2(8, 2, 15, true);

    final int bits;
    final int mantissaBits;
    final int bias;
    /** fp8: SATFINITE narrowing, and E4M3 has no infinities. */
    final boolean saturates;
    final double maxFinite;
    final int minExponent;

    RefFormat(int bits, int mantissaBits, int bias, boolean saturates) {
        this.bits = bits;
        this.mantissaBits = mantissaBits;
        this.bias = bias;
        this.saturates = saturates;
        this.minExponent = 1 - bias;
        int expBits = bits - 1 - mantissaBits;
        int maxExp = (1 << expBits) - 1 - bias;                       // all-ones exponent field, unbiased
        double allOnes = 2.0 - Math.scalb(1.0, -mantissaBits);
        if (name().equals("E4M3")) {
            // E4M3FN: the all-ones exponent holds normal values except mantissa 111 (NaN).
            maxFinite = Math.scalb(2.0 - Math.scalb(2.0, -mantissaBits), maxExp);
        } else {
            maxFinite = Math.scalb(allOnes, maxExp - 1);
        }
    }

    /** The value of a code (NaN for NaN codes). */
    double decode(int code) {
        int expBits = bits - 1 - mantissaBits;
        boolean negative = ((code >>> (bits - 1)) & 1) != 0;
        int e = (code >>> mantissaBits) & ((1 << expBits) - 1);
        int m = code & ((1 << mantissaBits) - 1);
        double v;
        if (this == E4M3 && e == 15 && m == 7) {
            return Double.NaN;
        } else if (this != E4M3 && e == (1 << expBits) - 1) {
            v = m == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
        } else if (e == 0) {
            v = Math.scalb((double) m, minExponent - mantissaBits);
        } else {
            v = Math.scalb((double) ((1 << mantissaBits) + m), e - bias - mantissaBits);
        }
        return negative ? -v : v;
    }

    /** {@code x} rounded to nearest even in this format (saturating for fp8, overflowing to infinity otherwise). */
    double round(double x) {
        if (Double.isNaN(x)) {
            return Double.NaN;
        }
        double a = Math.abs(x);
        if (a == Double.POSITIVE_INFINITY) {
            return saturates ? Math.copySign(maxFinite, x) : x;
        }
        if (a == 0) {
            return x;
        }
        int e = Math.max(Math.getExponent(a), minExponent);
        double ulp = Math.scalb(1.0, e - mantissaBits);
        double r = Math.rint(a / ulp) * ulp;
        if (r > maxFinite) {
            r = saturates ? maxFinite : Double.POSITIVE_INFINITY;
        }
        return Math.copySign(r, x);
    }

    /** The number of codes. */
    int codes() {
        return 1 << bits;
    }
}
