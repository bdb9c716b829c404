package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;

/**
 * Picks the {@link Reducer} for a type, op and rank count, and validates them. SUM, PROD, MIN and MAX reducers do
 * not depend on the rank count and are shared (built once, no allocation per call); AVG and PRE_MUL_SUM reducers
 * carry nRanks or the scalar and are built per call of {@link #of} (callers keep them for the operation).
 * Whether the vector loops run is decided once per JVM ({@link Simd#VECTOR_BY_DEFAULT}).
 * Owned by: any thread (the shared table is immutable after class initialisation). Mirrors: NCCL's
 * {@code hostToDevRedOp} plus the kernel table lookup by (op, type).
 */
final class Reducers {
    /** Shared reducers for [type][SUM, PROD, MAX, MIN]. */
    private static final Reducer[][] SHARED = new Reducer[DataType.values().length][4];

    static {
        for (DataType type : DataType.values()) {
            for (RedOp op : new RedOp[]{RedOp.SUM, RedOp.PROD, RedOp.MAX, RedOp.MIN}) {
                SHARED[type.ordinal()][op.kind().ordinal()] = create(type, op, 1, Simd.VECTOR_BY_DEFAULT);
            }
        }
    }

    private Reducers() {
    }

    static Reducer of(DataType type, RedOp op, int nRanks) {
        validate(type, op, nRanks);
        int kind = op.kind().ordinal();
        if (kind < 4) {
            return SHARED[type.ordinal()][kind];
        }
        return create(type, op, nRanks, Simd.VECTOR_BY_DEFAULT);
    }

    /** A new reducer with the vector loops on or off (tests compare the two; {@code vector} is ignored where the
     * platform has no suitable vector shape). */
    static ReducerBase create(DataType type, RedOp op, int nRanks, boolean vector) {
        validate(type, op, nRanks);
        return switch (type) {
            case INT8, UINT8 -> new I8Reducer(type, op, nRanks, vector);
            case INT32, UINT32 -> new I32Reducer(type, op, nRanks, vector);
            case INT64, UINT64 -> new I64Reducer(type, op, nRanks, vector);
            case FLOAT16 -> new Fp16Reducer(op, nRanks, vector);
            case FLOAT32 -> new F32Reducer(op, nRanks, vector);
            case FLOAT64 -> new F64Reducer(op, nRanks, vector);
            case BFLOAT16 -> new Bf16Reducer(op, nRanks, vector);
            case FLOAT8_E4M3, FLOAT8_E5M2 -> new Fp8Reducer(type, op, nRanks, vector);
        };
    }

    /**
     * The PRE_MUL_SUM scalar of an integer reducer as the low 64 bits of the integer it names (1 for other ops);
     * wrap-around multiplication only needs those bits.
     */
    static long integralScalar(RedOp op) {
        return op.kind() == RedOp.Kind.PRE_MUL_SUM ? ElementCodec.truncateWrapping(op.scalar()) : 1;
    }

    private static void validate(DataType type, RedOp op, int nRanks) {
        if (type == null || op == null) {
            throw new JcclException(Result.INVALID_ARGUMENT, "reduction needs a data type and an op, got type="
                    + type + ", op=" + op);
        }
        if (nRanks < 1) {
            throw new JcclException(Result.INVALID_ARGUMENT, "reduction " + op + " on " + type + ": nRanks "
                    + nRanks + " must be at least 1");
        }
        if (op.kind() == RedOp.Kind.PRE_MUL_SUM && !type.isFloatingPoint() && op.scalar() != Math.rint(op.scalar())) {
            throw new JcclException(Result.INVALID_ARGUMENT, "preMulSum scalar " + op.scalar() + " is not a whole"
                    + " number, but " + type + " is an integer type; pass an integral scalar or use a float type");
        }
    }
}
