package io.jccl.tools.perf;

import io.jccl.DataType;

/**
 * The deterministic input of a checked run: the value rank r puts at element i in repetition {@code rep}, chosen so
 * that every partial result any algorithm can form is exactly representable in the type.
 * <ul>
 *   <li>sum, avg, mulsum: small integers whose magnitudes, times the contributors (and the mulsum scalar 2), stay
 *       within {@link TypeLimits#exactIntegerLimit}; when even 1 per rank is too much (fp8 with many ranks), only
 *       some ranks contribute a 1 to each element, never more than the limit;</li>
 *   <li>prod on floats: 1, except that at most one rank contributes 2 and at most one 0.5 to each element, so every
 *       partial product is 0.5, 1 or 2; prod on integers: small factors whose products wrap exactly;</li>
 *   <li>min, max and non-reducing collectives: integers up to the type's limit (at most ±500).</li>
 * </ul>
 * Signed and floating-point types get values centred on zero. Immutable, so any thread may use it; the host-side
 * analogue of nccl-tests' verifiable input generator.
 */
public final class DataPattern {
    /** Largest amplitude used, so values stay small and easy to read in a dump. */
    static final long MAX_AMPLITUDE = 1000;

    private final DataType type;
    private final OpChoice op;
    private final int contributors;
    private final long amplitude;
    private final long stride;
    private final boolean centred;

    private DataPattern(DataType type, OpChoice op, int contributors, long amplitude, long stride) {
        this.type = type;
        this.op = op;
        this.contributors = contributors;
        this.amplitude = amplitude;
        this.stride = stride;
        this.centred = TypeLimits.signed(type) && amplitude >= 2;
    }

    /**
     * The pattern for {@code type}. {@code op} is the reduction (null for collectives that only move data) and
     * {@code contributors} the number of inputs combined into each result element (the rank count for reductions).
     */
    public static DataPattern of(DataType type, OpChoice op, int contributors) {
        if (contributors < 1) {
            throw new IllegalArgumentException("contributors must be at least 1, got " + contributors);
        }
        long limit = TypeLimits.exactIntegerLimit(type);
        boolean sums = op == OpChoice.SUM || op == OpChoice.AVG || op == OpChoice.MULSUM;
        long effLimit = op == OpChoice.MULSUM ? limit / 2 : limit;
        long divisor = sums ? contributors : 1;
        long budget = effLimit / divisor;
        if (budget >= 1) {
            return new DataPattern(type, op, contributors, Math.min(budget, MAX_AMPLITUDE), 1);
        }
        long stride = (contributors + effLimit - 1) / effLimit;
        return new DataPattern(type, op, contributors, 1, stride);
    }

    /** Rank {@code rank}'s input value at element {@code index}, repetition {@code rep}; exactly representable. */
    public double value(int rank, long index, int rep) {
        long h = mix(rank, index, rep);
        if (op == OpChoice.PROD) {
            return type.isFloatingPoint() ? floatFactor(rank, index, rep) : intFactor(h);
        }
        if (stride > 1 && Math.floorMod(index + rank + rep, stride) != 0) {
            return 0;
        }
        long raw = Long.remainderUnsigned(h, amplitude + 1);
        return centred ? raw - amplitude / 2 : raw;
    }

    private double floatFactor(int rank, long index, int rep) {
        long m = Math.max(contributors, 3);
        long t = Math.floorMod(index + rank + rep, m);
        return t == 0 ? 2.0 : t == 1 ? 0.5 : 1.0;
    }

    private double intFactor(long h) {
        if (TypeLimits.signed(type)) {
            long v = Long.remainderUnsigned(h, 4);
            return v == 0 ? -1 : v + 1;   // -1, 2, 3, 4 -> products wrap, still exact in two's complement
        }
        return Long.remainderUnsigned(h, 3) + 1;
    }

    /** The largest magnitude a value can have (for tests and tolerances). */
    public long amplitude() {
        return amplitude;
    }

    /** 1 when every rank contributes to every element; above 1 when only every stride-th rank does. */
    public long stride() {
        return stride;
    }

    /** A 64-bit mix of the coordinates (SplitMix64 finaliser), so neighbouring elements and ranks differ. */
    static long mix(int rank, long index, int rep) {
        long z = index * 0x9E3779B97F4A7C15L + (rank + 1L) * 0xC2B2AE3D27D4EB4FL + (rep + 1L) * 0x165667B19E3779F9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
