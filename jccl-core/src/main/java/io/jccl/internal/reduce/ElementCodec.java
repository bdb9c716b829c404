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
        throw new UnsupportedOperationException("placeholder, replaced by the reduce package");
    }

    /** Stores {@code v} at {@code index}, converting as a cast would (integers truncate, floats round to nearest even). */
    public static void set(DataType type, MemorySegment seg, long index, double v) {
        throw new UnsupportedOperationException("placeholder, replaced by the reduce package");
    }

    /** The element as a long (integer types exact, including uint64 as its two's-complement bits; floats truncated). */
    public static long getLong(DataType type, MemorySegment seg, long index) {
        throw new UnsupportedOperationException("placeholder, replaced by the reduce package");
    }

    /** Stores a long, exactly for integer types (wrapping to the type's width), converted for floats. */
    public static void setLong(DataType type, MemorySegment seg, long index, long v) {
        throw new UnsupportedOperationException("placeholder, replaced by the reduce package");
    }
}
