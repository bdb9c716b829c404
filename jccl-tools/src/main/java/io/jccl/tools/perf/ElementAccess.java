package io.jccl.tools.perf;

import io.jccl.DataType;

import java.lang.foreign.MemorySegment;

/**
 * Reads and writes single elements of any {@link DataType} in host memory, for filling inputs and checking
 * results (never on a timed path). {@link #DATA_TYPE} uses the public {@link DataType} accessors; tests supply
 * their own. Stateless; the role of nccl-tests' verifiable kernels' element loads and stores.
 */
public interface ElementAccess {

    /** The element at {@code index} as a double (unsigned integers read as unsigned). */
    double getDouble(DataType type, MemorySegment seg, long index);

    /** Stores an exactly representable value. */
    void setDouble(DataType type, MemorySegment seg, long index, double value);

    /** The element as a long (integer types exactly). */
    long getLong(DataType type, MemorySegment seg, long index);

    /** Stores an integer, wrapping to the type's width. */
    void setLong(DataType type, MemorySegment seg, long index, long value);

    /** The production implementation, through {@link DataType}'s accessors. */
    ElementAccess DATA_TYPE = new ElementAccess() {
        @Override
        public double getDouble(DataType type, MemorySegment seg, long index) {
            return type.getDouble(seg, index);
        }

        @Override
        public void setDouble(DataType type, MemorySegment seg, long index, double value) {
            type.setDouble(seg, index, value);
        }

        @Override
        public long getLong(DataType type, MemorySegment seg, long index) {
            return type.getLong(seg, index);
        }

        @Override
        public void setLong(DataType type, MemorySegment seg, long index, long value) {
            type.setLong(seg, index, value);
        }
    };
}
