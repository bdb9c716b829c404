package io.jccl.cuda.testing;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;

/**
 * Inputs and expected outputs of the GPU collective tests, computed on the host: rank r's input element i is a
 * small value chosen so that sum, prod, min and max are exact in every type (fp8 included) for up to 4 ranks, and
 * the expected output of every collective follows NCCL's definitions. preMulSum uses scalar 1 on even ranks and 2
 * on odd ones; avg and preMulSum on floating-point types are compared with a rounding tolerance.
 *
 * <p>Stateless. The GPU-side counterpart is the kernels themselves.
 */
public final class Expected {
    private Expected() {
    }

    /** The reduction {@code rank} passes for {@code kind}. */
    public static RedOp op(RedOp.Kind kind, int rank) {
        return switch (kind) {
            case SUM -> RedOp.SUM;
            case PROD -> RedOp.PROD;
            case MIN -> RedOp.MIN;
            case MAX -> RedOp.MAX;
            case AVG -> RedOp.AVG;
            case PRE_MUL_SUM -> RedOp.preMulSum(scalar(rank));
        };
    }

    static double scalar(int rank) {
        return rank % 2 == 0 ? 1 : 2;
    }

    /** Rank {@code r}'s input element {@code i}. */
    public static double input(DataType t, RedOp.Kind op, int r, long i) {
        long h = (i * 0x9E3779B1L + r * 0x85EBCA77L + 0x165667B1L) >>> 7;
        boolean fp8 = t == DataType.FLOAT8_E4M3 || t == DataType.FLOAT8_E5M2;
        if (op == RedOp.Kind.PROD) {
            long k = Math.floorMod(i + r, 4);
            if (t.isFloatingPoint()) {
                return k == 0 ? 2 : k == 1 ? 0.5 : 1;
            }
            return k == 0 ? 2 : 1;
        }
        boolean wide = op == RedOp.Kind.MIN || op == RedOp.Kind.MAX;
        long amp = wide ? (fp8 ? 8 : 50) : (fp8 ? 1 : 3);
        long v = Math.floorMod(h, 2 * amp + 1) - amp;
        return t.isUnsigned() ? Math.abs(v) : v;
    }

    /** The exact reduction over {@code n} ranks of element {@code i} (before avg's division). */
    static double reduce(DataType t, RedOp.Kind op, int n, long i) {
        double acc = 0;
        for (int p = 0; p < n; p++) {
            double x = input(t, op, p, i) * (op == RedOp.Kind.PRE_MUL_SUM ? scalar(p) : 1);
            acc = p == 0 ? x : switch (op) {
                case PROD -> acc * x;
                case MIN -> Math.min(acc, x);
                case MAX -> Math.max(acc, x);
                default -> acc + x;
            };
        }
        if (op == RedOp.Kind.AVG) {
            acc = t.isFloatingPoint() ? acc / n : (double) ((long) acc / n);
        }
        return acc;
    }

    /** Tolerance for element values of size {@code magnitude}: 0 (exact) except avg / preMulSum on floats. */
    static double tolerance(DataType t, RedOp.Kind op, double magnitude) {
        if (!t.isFloatingPoint() || (op != RedOp.Kind.AVG && op != RedOp.Kind.PRE_MUL_SUM)) {
            return 0;
        }
        double u = switch (t) {
            case FLOAT64 -> 0x1p-52;
            case FLOAT32 -> 0x1p-23;
            case FLOAT16 -> 0x1p-10;
            case BFLOAT16 -> 0x1p-7;
            case FLOAT8_E4M3 -> 0x1p-3;
            default -> 0x1p-2;
        };
        return 2 * u * Math.max(1, magnitude);
    }

    /**
     * What rank {@code r} of {@code n} must hold at output element {@code j} of collective {@code coll} with
     * per-rank count {@code count} (allGather: sendCount; reduceScatter: recvCount; allToAll/gather/scatter: block),
     * as {expected value, tolerance}.
     */
    public static double[] output(Collective coll, DataType t, RedOp.Kind op, int n, int r, int root, long count,
                                  long j) {
        double v = switch (coll) {
            case ALL_REDUCE, REDUCE -> reduce(t, op, n, j);
            case REDUCE_SCATTER -> reduce(t, op, n, (long) r * count + j);
            case BROADCAST -> input(t, op, root, j);
            case ALL_GATHER, GATHER -> input(t, op, (int) (j / count), j % count);
            case ALL_TO_ALL -> input(t, op, (int) (j / count), (long) r * count + j % count);
            case SCATTER -> input(t, op, root, (long) r * count + j);
            case SEND_RECV -> input(t, op, (r - 1 + n) % n, j);
            default -> throw new IllegalArgumentException(coll.toString());
        };
        double mag = coll.reduces() ? n * 16.0 : 0;
        return new double[] {v, coll.reduces() ? tolerance(t, op, mag) : 0};
    }

    /** Elements of rank r's input for {@code coll} (count as in {@link #output}). */
    public static long inputCount(Collective coll, int n, long count) {
        return switch (coll) {
            case REDUCE_SCATTER, ALL_TO_ALL -> count * n;
            case SCATTER -> count * n;
            default -> count;
        };
    }

    /** Elements of rank r's output (0 where the collective writes nothing on that rank). */
    public static long outputCount(Collective coll, int n, int r, int root, long count) {
        return switch (coll) {
            case ALL_GATHER, ALL_TO_ALL -> count * n;
            case GATHER -> r == root ? count * n : 0;
            case REDUCE -> r == root ? count : 0;
            default -> count;
        };
    }
}
