package io.jccl.internal.algorithm;

import java.lang.foreign.MemorySegment;

/** Small helpers on memory segments. Owned by: stateless. */
public final class Segments {
    private Segments() {
    }

    /** True if {@code a + aOff} and {@code b + bOff} are the same memory location (in-place detection). */
    public static boolean same(MemorySegment a, long aOff, MemorySegment b, long bOff) {
        if (a.isNative() != b.isNative()) {
            return false;
        }
        if (!a.isNative() && a.heapBase().orElse(null) != b.heapBase().orElse(null)) {
            return false;
        }
        return a.address() + aOff == b.address() + bOff;
    }
}
