package io.jccl.internal.algorithm;

import java.lang.foreign.MemorySegment;

/** Small helpers on memory segments. Owned by: stateless. */
final class Segments {
    private Segments() {
    }

    /**
     * True if {@code a + aOff} and {@code b + bOff} are the same memory location (in-place detection): both native at
     * one address, or views of one heap array at one offset into it, read-only views included. Allocation-free,
     * except for a read-only heap view at an offset other than the other segment's start.
     */
    public static boolean same(MemorySegment a, long aOff, MemorySegment b, long bOff) {
        if (a.isNative() != b.isNative() || a.address() + aOff != b.address() + bOff) {
            return false;
        }
        if (a.isNative()) {
            return true;
        }
        if (a.address() == b.address()) {
            return a.equals(b); // the same array at the same offset
        }
        if (a.isReadOnly() || b.isReadOnly()) {
            return a.asOverlappingSlice(b).isPresent(); // a read-only view hides its array
        }
        return a.heapBase().orElse(null) == b.heapBase().orElse(null);
    }
}
