package io.jccl.internal.reduce;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Raw element bits in native order at any byte offset, zero-extended to a long (test helper). */
final class RawBits {
    private RawBits() {
    }

    static long get(MemorySegment s, long off, int size) {
        return switch (size) {
            case 1 -> s.get(ValueLayout.JAVA_BYTE, off) & 0xFFL;
            case 2 -> s.get(ValueLayout.JAVA_SHORT_UNALIGNED, off) & 0xFFFFL;
            case 4 -> s.get(ValueLayout.JAVA_INT_UNALIGNED, off) & 0xFFFF_FFFFL;
            default -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
        };
    }

    static void put(MemorySegment s, long off, int size, long bits) {
        switch (size) {
            case 1 -> s.set(ValueLayout.JAVA_BYTE, off, (byte) bits);
            case 2 -> s.set(ValueLayout.JAVA_SHORT_UNALIGNED, off, (short) bits);
            case 4 -> s.set(ValueLayout.JAVA_INT_UNALIGNED, off, (int) bits);
            default -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, off, bits);
        }
    }
}
