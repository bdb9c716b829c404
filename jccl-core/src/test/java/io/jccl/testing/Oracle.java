package io.jccl.testing;

import io.jccl.DataType;
import io.jccl.RedOp;

import java.lang.foreign.MemorySegment;

/**
 * Deterministic inputs and the scalar reference the collectives are checked against. Inputs are small integers chosen
 * so every partial result is exactly representable in every type (fp8 included), so integer types and all sums,
 * products, minima and maxima must match exactly; only AVG on floating-point types is compared with a tolerance of a
 * few units in the last place of the type ({@link #tolerance}).
 */
public final class Oracle {
    /** preMulSum scalar used by the tests. */
    public static final double SCALAR = 2.0;

    private Oracle() {
    }

    /** What {@code rank} contributes at element {@code i} to a reduction with {@code op}. */
    public static double input(DataType t, RedOp.Kind op, int rank, long i) {
        boolean fp8 = t == DataType.FLOAT8_E4M3 || t == DataType.FLOAT8_E5M2;
        boolean unsigned = t.isUnsigned();
        switch (op) {
            case PROD -> {
                long k = (rank + i) % 4;
                return k == 0 ? 2 : (k == 1 && !unsigned ? -1 : 1);
            }
            case MIN, MAX -> {
                long v = (rank * 13L + i * 7) % 9;
                return unsigned ? v : v - 4;
            }
            default -> {
                if (fp8) {
                    return (rank + i) % 2;
                }
                long v = (rank * 7L + i * 3) % 5;
                return unsigned ? v : v - 2;
            }
        }
    }

    /** A value identifying (rank, i) for data-movement collectives, exact in every type. */
    public static double movement(DataType t, int rank, long i) {
        boolean fp8 = t == DataType.FLOAT8_E4M3 || t == DataType.FLOAT8_E5M2;
        return fp8 ? (rank * 3 + i) % 8 : (rank * 31 + i) % 100;
    }

    /** The reduction over {@code nRanks} ranks at element {@code i}, before rounding to the type. */
    public static double reduce(DataType t, RedOp op, int nRanks, long i) {
        double acc = 0;
        long lacc = op.kind() == RedOp.Kind.PROD ? 1 : 0;
        for (int r = 0; r < nRanks; r++) {
            double v = input(t, op.kind(), r, i);
            switch (op.kind()) {
                case SUM, AVG -> acc += v;
                case PRE_MUL_SUM -> acc += op.scalar() * v;
                case PROD -> lacc *= (long) v;
                case MIN -> acc = r == 0 ? v : Math.min(acc, v);
                case MAX -> acc = r == 0 ? v : Math.max(acc, v);
            }
        }
        if (op.kind() == RedOp.Kind.PROD) {
            return lacc;
        }
        if (op.kind() == RedOp.Kind.AVG) {
            return t.isFloatingPoint() ? acc / nRanks : (double) ((long) acc / nRanks);
        }
        return acc;
    }

    /** Allowed absolute difference between a result of type {@code t} and the exact expectation. */
    public static double tolerance(DataType t, RedOp op, double expected) {
        if (op.kind() != RedOp.Kind.AVG || !t.isFloatingPoint()) {
            return 0;
        }
        double rel = switch (t) {
            case FLOAT64 -> 1e-12;
            case FLOAT32 -> 1e-6;
            case FLOAT16 -> 2e-3;
            case BFLOAT16 -> 1.6e-2;
            case FLOAT8_E4M3 -> 0.13;
            default -> 0.26;
        };
        return rel * Math.max(1, Math.abs(expected));
    }

    /** Eight bytes per thread for {@link #asType} (an arena per element checked floods the Cleaner: 50 M+ in a run). */
    private static final ThreadLocal<MemorySegment> SCRATCH =
            ThreadLocal.withInitial(() -> MemorySegment.ofArray(new long[1]));

    /** {@code v} as stored in type {@code t} (wrapping, rounding), read back as a double. */
    public static double asType(DataType t, double v) {
        MemorySegment s = SCRATCH.get();
        if (t.isFloatingPoint()) {
            t.setDouble(s, 0, v);
        } else {
            t.setLong(s, 0, (long) v);
        }
        return t.getDouble(s, 0);
    }

    public static boolean close(DataType t, RedOp op, double got, double expectedExact) {
        double exp = asType(t, expectedExact);
        return Math.abs(got - exp) <= tolerance(t, op, expectedExact) || (Double.isNaN(got) && Double.isNaN(exp));
    }
}
