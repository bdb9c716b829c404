package io.jccl;

import java.util.Objects;

/**
 * A reduction operation: {@link #SUM}, {@link #PROD}, {@link #MIN}, {@link #MAX}, {@link #AVG}, or
 * {@link #preMulSum(double)} (each rank's input is multiplied by a scalar before summing, as
 * {@code ncclRedOpCreatePreMulSum}).
 *
 * <p>{@code AVG} divides the sum by the number of ranks once, at the end; for integer types the division truncates.
 * For integer types a pre-multiplication scalar must be a whole number.
 */
public final class RedOp {
    /** The operation families, numbered as NCCL's {@code ncclRedOp_t} (PRE_MUL_SUM is created dynamically there). */
    public enum Kind {
        /** Sum. */
        SUM(0, "sum"),
        /** Product. */
        PROD(1, "prod"),
        /** Maximum. */
        MAX(2, "max"),
        /** Minimum. */
        MIN(3, "min"),
        /** Sum divided by the number of ranks. */
        AVG(4, "avg"),
        /** Sum of each rank's input multiplied by a scalar. */
        PRE_MUL_SUM(5, "mulsum");

        private final int ncclId;
        private final String ncclName;

        Kind(int ncclId, String ncclName) {
            this.ncclId = ncclId;
            this.ncclName = ncclName;
        }

        /**
         * NCCL's {@code ncclRedOp_t} value (PRE_MUL_SUM: the first dynamic id).
         *
         * @return the value
         */
        public int ncclId() {
            return ncclId;
        }

        /**
         * nccl-tests' name of the operation ({@code sum}, {@code prod}, {@code max}, {@code min}, {@code avg}, {@code
         * mulsum}).
         *
         * @return the name
         */
        public String ncclName() {
            return ncclName;
        }
    }

    /** Sum ({@code ncclSum}). */
    public static final RedOp SUM = new RedOp(Kind.SUM, 1.0);
    /** Product ({@code ncclProd}). */
    public static final RedOp PROD = new RedOp(Kind.PROD, 1.0);
    /** Maximum ({@code ncclMax}). */
    public static final RedOp MAX = new RedOp(Kind.MAX, 1.0);
    /** Minimum ({@code ncclMin}). */
    public static final RedOp MIN = new RedOp(Kind.MIN, 1.0);
    /** Average: the sum divided by the number of ranks ({@code ncclAvg}). */
    public static final RedOp AVG = new RedOp(Kind.AVG, 1.0);

    private final Kind kind;
    private final double scalar;

    private RedOp(Kind kind, double scalar) {
        this.kind = kind;
        this.scalar = scalar;
    }

    /**
     * Sum of {@code scalar * input} over ranks ({@code ncclRedOpCreatePreMulSum}).
     *
     * @param scalar the factor every input is multiplied by; finite, and whole for integer types
     * @return the operation
     */
    public static RedOp preMulSum(double scalar) {
        if (!Double.isFinite(scalar)) {
            throw new JcclException(Result.INVALID_ARGUMENT, "preMulSum scalar must be finite, got " + scalar);
        }
        return new RedOp(Kind.PRE_MUL_SUM, scalar);
    }

    /**
     * The operation for one of nccl-tests' names: sum, prod, max, min, avg (mulsum needs a scalar: use {@link
     * #preMulSum}).
     *
     * @param name the name
     * @return the operation
     * @throws JcclException with {@link Result#INVALID_ARGUMENT} when the name is unknown
     */
    public static RedOp fromName(String name) {
        return switch (name.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "sum" -> SUM;
            case "prod" -> PROD;
            case "max" -> MAX;
            case "min" -> MIN;
            case "avg" -> AVG;
            default -> throw new JcclException(Result.INVALID_ARGUMENT,
                    "unknown reduction '" + name + "'; expected sum, prod, max, min or avg");
        };
    }

    /**
     * The operation family.
     *
     * @return the kind
     */
    public Kind kind() {
        return kind;
    }

    /**
     * The pre-multiplication scalar (1.0 for every kind but PRE_MUL_SUM).
     *
     * @return the scalar
     */
    public double scalar() {
        return scalar;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RedOp r && r.kind == kind && Double.compare(r.scalar, scalar) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, scalar);
    }

    @Override
    public String toString() {
        return kind == Kind.PRE_MUL_SUM ? "preMulSum(" + scalar + ")" : kind.ncclName();
    }
}
