package io.jccl;

import io.jccl.internal.reduce.ElementCodec;

import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * Element types of a collective, with NCCL's numbering ({@code ncclDataType_t}) and nccl-tests' names.
 *
 * <p>Half-precision and 8-bit floating-point types are reduced in fp32 and rounded once per step, as NCCL does.
 */
public enum DataType {
    /** Signed 8-bit integer ({@code ncclInt8}). */
    INT8(0, 1, "int8"),
    /** Unsigned 8-bit integer ({@code ncclUint8}). */
    UINT8(1, 1, "uint8"),
    /** Signed 32-bit integer ({@code ncclInt32}). */
    INT32(2, 4, "int32"),
    /** Unsigned 32-bit integer ({@code ncclUint32}). */
    UINT32(3, 4, "uint32"),
    /** Signed 64-bit integer ({@code ncclInt64}). */
    INT64(4, 8, "int64"),
    /** Unsigned 64-bit integer ({@code ncclUint64}). */
    UINT64(5, 8, "uint64"),
    /** IEEE half precision ({@code ncclFloat16}); reduced in fp32. */
    FLOAT16(6, 2, "half"),
    /** IEEE single precision ({@code ncclFloat32}). */
    FLOAT32(7, 4, "float"),
    /** IEEE double precision ({@code ncclFloat64}). */
    FLOAT64(8, 8, "double"),
    /** bfloat16 ({@code ncclBfloat16}); reduced in fp32. */
    BFLOAT16(9, 2, "bfloat16"),
    /** 8-bit float with 4 exponent and 3 mantissa bits ({@code ncclFloat8e4m3}); reduced in fp32. */
    FLOAT8_E4M3(10, 1, "f8e4m3"),
    /** 8-bit float with 5 exponent and 2 mantissa bits ({@code ncclFloat8e5m2}); reduced in fp32. */
    FLOAT8_E5M2(11, 1, "f8e5m2");

    private final int ncclId;
    private final int sizeBytes;
    private final String ncclName;

    DataType(int ncclId, int sizeBytes, String ncclName) {
        this.ncclId = ncclId;
        this.sizeBytes = sizeBytes;
        this.ncclName = ncclName;
    }

    /**
     * The value of the matching {@code ncclDataType_t}.
     *
     * @return the value
     */
    public int ncclId() {
        return ncclId;
    }

    /**
     * Bytes per element.
     *
     * @return the size in bytes
     */
    public int sizeBytes() {
        return sizeBytes;
    }

    /**
     * The name nccl-tests uses on the command line and in its tables ({@code float}, {@code half}, ...).
     *
     * @return the name
     */
    public String ncclName() {
        return ncclName;
    }

    /**
     * True for the floating-point types (fp8, fp16, bf16, fp32, fp64).
     *
     * @return whether it is a floating-point type
     */
    public boolean isFloatingPoint() {
        return switch (this) {
            case FLOAT16, FLOAT32, FLOAT64, BFLOAT16, FLOAT8_E4M3, FLOAT8_E5M2 -> true;
            default -> false;
        };
    }

    /**
     * True for the unsigned integer types.
     *
     * @return whether it is unsigned
     */
    public boolean isUnsigned() {
        return this == UINT8 || this == UINT32 || this == UINT64;
    }

    /**
     * Reads element {@code index} (in elements, not bytes) of {@code seg} as a double: fp8/fp16/bf16 are widened,
     * unsigned integers read as unsigned, 64-bit integers rounded beyond 2^53. For checking results, not for hot loops.
     *
     * @param seg   the memory
     * @param index the element index
     * @return the value
     */
    public double getDouble(MemorySegment seg, long index) {
        return ElementCodec.get(this, seg, index);
    }

    /**
     * Writes element {@code index} from a double (integers truncate toward zero and wrap; floats round to nearest
     * even).
     *
     * @param seg   the memory
     * @param index the element index
     * @param value the value
     */
    public void setDouble(MemorySegment seg, long index, double value) {
        ElementCodec.set(this, seg, index, value);
    }

    /**
     * Reads element {@code index} as a long: exact for every integer type (uint64 as its bits); floats truncate.
     *
     * @param seg   the memory
     * @param index the element index
     * @return the value
     */
    public long getLong(MemorySegment seg, long index) {
        return ElementCodec.getLong(this, seg, index);
    }

    /**
     * Writes element {@code index} from a long: exact (wrapping) for integer types, converted for floats.
     *
     * @param seg   the memory
     * @param index the element index
     * @param value the value
     */
    public void setLong(MemorySegment seg, long index, long value) {
        ElementCodec.setLong(this, seg, index, value);
    }

    /**
     * Parses a type name: nccl-tests' names ({@code float}, {@code half}, {@code bfloat16}, {@code f8e4m3}, ...),
     * NCCL's C names ({@code ncclFloat32}, {@code ncclHalf}, ...) or this enum's constant names, ignoring case.
     *
     * @param name the name
     * @return the type
     * @throws JcclException with {@link Result#INVALID_ARGUMENT} when the name is unknown
     */
    public static DataType fromName(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        if (n.startsWith("nccl")) {
            n = n.substring(4);
        }
        for (DataType t : values()) {
            if (t.ncclName.equals(n) || t.name().toLowerCase(Locale.ROOT).equals(n)) {
                return t;
            }
        }
        return switch (n) {
            case "char" -> INT8;
            case "int" -> INT32;
            case "float32", "fp32" -> FLOAT32;
            case "float64", "fp64" -> FLOAT64;
            case "float16", "fp16" -> FLOAT16;
            case "bf16" -> BFLOAT16;
            case "float8e4m3", "fp8e4m3", "e4m3" -> FLOAT8_E4M3;
            case "float8e5m2", "fp8e5m2", "e5m2" -> FLOAT8_E5M2;
            default -> throw new JcclException(Result.INVALID_ARGUMENT, "unknown data type '" + name
                    + "'; expected one of int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 "
                            + "f8e5m2");
        };
    }
}
