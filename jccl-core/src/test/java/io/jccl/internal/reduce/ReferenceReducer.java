package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * A slow, obviously-correct model of {@link Reducer} for one element: integers in {@link BigInteger}, floats in
 * double rounded to fp32 after every operation (exact: double has more than 2·24+2 bits, so rounding a double
 * result of +, ·, / on fp32 operands to fp32 equals the fp32 operation) and then to the type by {@link RefFormat}.
 * Elements are raw bits, zero-extended to a long.
 */
final class ReferenceReducer {
    /** What a reducer entry point computes per element. */
    enum Method {
        COMBINE(2), ACCUMULATE(2), ACCUMULATE_LAST(2), PREPARE(1), PREPARE_LAST(1), FINISH(1);

        final int inputs;

        Method(int inputs) {
            this.inputs = inputs;
        }
    }

    private enum Step { SUM, PROD, MIN, MAX, MUL_ADD, MUL, SUM_DIV, DIV, COPY }

    private final DataType type;
    private final RedOp.Kind kind;
    private final int nRanks;
    private final int bits;
    private final BigInteger modulus;
    private final BigInteger intScalar;
    private final double floatScalar;
    private final RefFormat format;

    ReferenceReducer(DataType type, RedOp op, int nRanks) {
        this.type = type;
        this.kind = op.kind();
        this.nRanks = nRanks;
        this.bits = type.sizeBytes() * 8;
        this.modulus = BigInteger.ONE.shiftLeft(bits);
        this.intScalar = type.isFloatingPoint() ? null : new BigDecimal(op.scalar()).toBigIntegerExact();
        this.floatScalar = type == DataType.FLOAT64 ? op.scalar() : (float) op.scalar();
        this.format = switch (type) {
            case FLOAT16 -> RefFormat.FP16;
            case BFLOAT16 -> RefFormat.BF16;
            case FLOAT8_E4M3 -> RefFormat.E4M3;
            case FLOAT8_E5M2 -> RefFormat.E5M2;
            default -> null;
        };
    }

    private Step step(Method m) {
        boolean postDiv = kind == RedOp.Kind.AVG && nRanks > 1;
        Step plain = switch (kind) {
            case PROD -> Step.PROD;
            case MIN -> Step.MIN;
            case MAX -> Step.MAX;
            default -> Step.SUM;
        };
        return switch (m) {
            case COMBINE -> plain;
            case ACCUMULATE -> kind == RedOp.Kind.PRE_MUL_SUM ? Step.MUL_ADD : plain;
            case ACCUMULATE_LAST -> kind == RedOp.Kind.PRE_MUL_SUM ? Step.MUL_ADD : postDiv ? Step.SUM_DIV : plain;
            case PREPARE -> kind == RedOp.Kind.PRE_MUL_SUM ? Step.MUL : Step.COPY;
            case PREPARE_LAST -> kind == RedOp.Kind.PRE_MUL_SUM ? Step.MUL : postDiv ? Step.DIV : Step.COPY;
            case FINISH -> postDiv ? Step.DIV : Step.COPY;
        };
    }

    /** True when the method copies bits (the result must equal the first input bit for bit). */
    boolean copies(Method m) {
        return step(m) == Step.COPY;
    }

    /** Expected raw bits for an integer type. */
    long expectedInteger(Method m, long x, long y) {
        BigInteger a = value(x);
        BigInteger b = value(y);
        BigInteger r = switch (step(m)) {
            case SUM -> a.add(b);
            case PROD -> a.multiply(b);
            case MIN -> a.min(b);
            case MAX -> a.max(b);
            case MUL_ADD -> a.add(intScalar.multiply(b));
            case MUL -> intScalar.multiply(a);
            case SUM_DIV -> value(wrap(a.add(b))).divide(BigInteger.valueOf(nRanks));
            case DIV -> a.divide(BigInteger.valueOf(nRanks));
            case COPY -> a;
        };
        return wrap(r);
    }

    /** Expected value for a float type (NaN when a NaN is expected). */
    double expectedFloat(Method m, long x, long y) {
        double a = decode(x);
        double b = decode(y);
        double n = nRanks;
        double r = switch (step(m)) {
            case SUM -> round(a + b);
            case PROD -> round(a * b);
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case MUL_ADD -> round(a + round(floatScalar * b));
            case MUL -> round(floatScalar * a);
            case SUM_DIV -> round(round(a + b) / n);
            case DIV -> round(a / n);
            case COPY -> a;
        };
        return format == null ? r : format.round(r);
    }

    /** The value of raw bits of a float type. */
    double decode(long raw) {
        return switch (type) {
            case FLOAT32 -> Float.intBitsToFloat((int) raw);
            case FLOAT64 -> Double.longBitsToDouble(raw);
            default -> format.decode((int) raw);
        };
    }

    /** Rounds to the type's compute precision: fp32, or nothing for fp64. */
    private double round(double v) {
        return type == DataType.FLOAT64 ? v : (float) v;
    }

    private BigInteger value(long raw) {
        BigInteger u = BigInteger.valueOf(raw).mod(modulus);
        if (!type.isUnsigned() && u.testBit(bits - 1)) {
            return u.subtract(modulus);
        }
        return u;
    }

    private long wrap(BigInteger v) {
        return v.mod(modulus).longValue();
    }
}
