package io.jccl.tools.perf;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * The few C {@code printf} conversions nccl-tests' output uses, reproduced exactly: fixed ({@code %.Nf}),
 * exponent ({@code %.Ne}) and general ({@code %g}) notation with round-half-even on the exact binary value (as
 * glibc), which Java's {@link java.util.Formatter} does not do (it rounds half-up on the shortest decimal), plus
 * nccl-tests' width-adaptive number cells. Stateless; mirrors nccl-tests' {@code getFloatStr} and its {@code %g}.
 */
public final class CFormat {
    private CFormat() {
    }

    /** {@code %.{decimals}f}. */
    public static String fixed(double v, int decimals) {
        if (!Double.isFinite(v)) {
            return nonFinite(v);
        }
        String s = new BigDecimal(v).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
        return v < 0 || (v == 0 && 1 / v < 0) ? (s.startsWith("-") ? s : "-" + s) : s;
    }

    /** {@code %.{decimals}e}: mantissa, {@code e}, sign and at least two exponent digits. */
    public static String exponent(double v, int decimals) {
        if (!Double.isFinite(v)) {
            return nonFinite(v);
        }
        if (v == 0) {
            return (1 / v < 0 ? "-" : "") + fixed(0, decimals) + "e+00";
        }
        BigDecimal abs = new BigDecimal(Math.abs(v));
        BigDecimal rounded = abs.round(new java.math.MathContext(decimals + 1, RoundingMode.HALF_EVEN));
        int exp = rounded.precision() - rounded.scale() - 1;
        BigDecimal mantissa = rounded.movePointLeft(exp).setScale(decimals, RoundingMode.HALF_EVEN);
        String e = Integer.toString(Math.abs(exp));
        return (v < 0 ? "-" : "") + mantissa.toPlainString() + "e" + (exp < 0 ? "-" : "+") + (e.length() < 2 ? "0" + e
                : e);
    }

    /** {@code %g} (precision 6): the shorter of fixed and exponent notation, trailing zeros removed. */
    public static String general(double v) {
        return general(v, 6);
    }

    /** {@code %.{precision}g}. */
    public static String general(double v, int precision) {
        if (!Double.isFinite(v)) {
            return nonFinite(v);
        }
        int p = Math.max(precision, 1);
        if (v == 0) {
            return 1 / v < 0 ? "-0" : "0";
        }
        BigDecimal rounded = new BigDecimal(Math.abs(v)).round(new java.math.MathContext(p, RoundingMode.HALF_EVEN));
        int x = rounded.precision() - rounded.scale() - 1;
        String s = (x < -4 || x >= p) ? exponent(v, p - 1) : fixed(v, p - 1 - x);
        return stripZeros(s);
    }

    /** Right-aligns {@code s} in {@code width} characters ({@code %*s}). */
    public static String pad(String s, int width) {
        return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
    }

    /**
     * nccl-tests' adaptive number cell of {@code width} characters: two decimals while they fit, then one, then
     * none, then exponent notation ({@code %*.1e} for widths of 7 and more, {@code %*.0e} below).
     */
    public static String cell(double value, int width) {
        int power = 0;
        for (double bound = 1; value >= bound && power < 400; bound *= 10) {
            power++;
        }
        String s;
        if (power < width - 2) {
            s = fixed(value, 2);
        } else if (power < width - 1) {
            s = fixed(value, 1);
        } else if (power < width + 1) {
            s = fixed(value, 0);
        } else if (width >= 7) {
            s = exponent(value, 1);
        } else {
            s = exponent(value, 0);
        }
        return pad(s, width);
    }

    private static String stripZeros(String s) {
        int e = s.indexOf('e');
        String mantissa = e < 0 ? s : s.substring(0, e);
        String rest = e < 0 ? "" : s.substring(e);
        if (mantissa.indexOf('.') >= 0) {
            mantissa = mantissa.replaceAll("0+$", "");
            if (mantissa.endsWith(".")) {
                mantissa = mantissa.substring(0, mantissa.length() - 1);
            }
        }
        return mantissa + rest;
    }

    private static String nonFinite(double v) {
        return Double.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
    }
}
