package io.jccl.internal.reduce;

import io.jccl.DataType;

import java.lang.foreign.MemorySegment;

/**
 * Reads and writes single elements of any {@link DataType} as {@code double} (integers exactly up to 2^53;
 * 64-bit integers also through {@link #getLong}/{@link #setLong}). Used by verification code and tools, never on a
 * hot path. Owned by: any thread (stateless).
 */
public final class ElementCodec {
    private ElementCodec() {
    }

    /** The element at {@code index} (element index, not bytes) as a double; unsigned types are read as unsigned. */
    public static double get(DataType type, MemorySegment seg, long index) {
        return switch (type) {
            case FLOAT32 -> seg.getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, index);
            case FLOAT64 -> seg.getAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE_UNALIGNED, index);
            default -> getLong(type, seg, index);
        };
    }

    /** Stores {@code v} at {@code index}, converting as a cast would (integers truncate, floats round to nearest even). */
    public static void set(DataType type, MemorySegment seg, long index, double v) {
        switch (type) {
            case FLOAT32 -> seg.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, index, (float) v);
            case FLOAT64 -> seg.setAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE_UNALIGNED, index, v);
            default -> setLong(type, seg, index, (long) v);
        }
    }

    /** The element as a long (integer types exact, including uint64 as its two's-complement bits; floats truncated). */
    public static long getLong(DataType type, MemorySegment seg, long index) {
        return switch (type) {
            case INT32 -> seg.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, index);
            case INT64 -> seg.getAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, index);
            case INT8 -> seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, index);
            case FLOAT32, FLOAT64 -> (long) get(type, seg, index);
            default -> throw new UnsupportedOperationException("interim codec: " + type);
        };
    }

    /** Stores a long, exactly for integer types (wrapping to the type's width), converted for floats. */
    public static void setLong(DataType type, MemorySegment seg, long index, long v) {
        switch (type) {
            case INT32 -> seg.setAtIndex(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, index, (int) v);
            case INT64 -> seg.setAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, index, v);
            case INT8 -> seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, index, (byte) v);
            case FLOAT32, FLOAT64 -> set(type, seg, index, v);
            default -> throw new UnsupportedOperationException("interim codec: " + type);
        }
    }
}
