package io.jccl.tools.perf;

import io.jccl.DataType;

/**
 * Numeric facts about each {@link DataType} that the input patterns and the tolerances are derived from: the
 * largest integer up to which every integer is exact (and in range), the unit roundoff of the floating-point types
 * and the spacing of their subnormals. Stateless; the host-side counterpart of nccl-tests' per-type verifiable
 * bounds.
 */
public final class TypeLimits {
    private TypeLimits() {
    }

    /**
     * The largest M such that every integer of magnitude at most M is exactly representable and in range (for
     * unsigned types: every integer in [0, M]). Capped at 2^53 so doubles can hold the value exactly.
     */
    public static long exactIntegerLimit(DataType type) {
        return switch (type) {
            case INT8 -> Byte.MAX_VALUE;
            case UINT8 -> 255;
            case INT32 -> Integer.MAX_VALUE;
            case UINT32 -> 0xffff_ffffL;
            case INT64, UINT64, FLOAT64 -> 1L << 53;
            case FLOAT32 -> 1L << 24;
            case FLOAT16 -> 1L << 11;
            case BFLOAT16 -> 1L << 8;
            case FLOAT8_E4M3 -> 1L << 4;
            case FLOAT8_E5M2 -> 1L << 3;
        };
    }

    /** True when the type holds negative values (signed integers and all floating-point types). */
    public static boolean signed(DataType type) {
        return !type.isUnsigned();
    }

    /** Half the distance from 1 to the next value: 2^-(mantissa bits + 1); 0 for integer types. */
    public static double unitRoundoff(DataType type) {
        return switch (type) {
            case FLOAT64 -> 0x1p-53;
            case FLOAT32 -> 0x1p-24;
            case FLOAT16 -> 0x1p-11;
            case BFLOAT16 -> 0x1p-8;
            case FLOAT8_E4M3 -> 0x1p-4;
            case FLOAT8_E5M2 -> 0x1p-3;
            default -> 0.0;
        };
    }

    /** The smallest positive (subnormal) value, the absolute rounding step near zero; 0 for integer types. */
    public static double subnormalStep(DataType type) {
        return switch (type) {
            case FLOAT64 -> Double.MIN_VALUE;
            case FLOAT32 -> 0x1p-149;
            case FLOAT16 -> 0x1p-24;
            case BFLOAT16 -> 0x1p-133;
            case FLOAT8_E4M3 -> 0x1p-9;
            case FLOAT8_E5M2 -> 0x1p-16;
            default -> 0.0;
        };
    }

    /** Wraps an integer result to the type's width, as the hardware would: int8 to [-128, 127], uint8 to [0, 255]... */
    public static long wrap(DataType type, long v) {
        return switch (type) {
            case INT8 -> (byte) v;
            case UINT8 -> v & 0xffL;
            case INT32 -> (int) v;
            case UINT32 -> v & 0xffff_ffffL;
            default -> v;
        };
    }
}
