package io.jccl.internal.algorithm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A private, grow-only scratch buffer for channel-0 work (freed with the communicator's arena).
 * Owned by: channel 0's thread.
 */
public final class Scratch {
    private final Arena arena;
    private MemorySegment seg;

    public Scratch(Arena arena) {
        this.arena = arena;
    }

    /** At least {@code bytes} of scratch (contents undefined). */
    public MemorySegment get(long bytes) {
        if (seg == null || seg.byteSize() < bytes) {
            seg = arena.allocate(Math.max(bytes, 4096), 64);
        }
        return seg;
    }
}
