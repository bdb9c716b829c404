package io.jccl.internal.algorithm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

/**
 * A private, grow-only scratch buffer for channel-0 work, in the communicator's suspendable memory: a suspend
 * drops it ({@link #release}) and the next use allocates it again. Owned by: channel 0's thread (the launching
 * thread when it suspends: the channel is idle then).
 */
public final class Scratch {
    private final Supplier<Arena> arena;
    private MemorySegment seg;

    public Scratch(Supplier<Arena> arena) {
        this.arena = arena;
    }

    /** At least {@code bytes} of scratch (contents undefined). */
    public MemorySegment get(long bytes) {
        if (seg == null || seg.byteSize() < bytes) {
            seg = arena.get().allocate(Math.max(bytes, 4096), 64);
        }
        return seg;
    }

    /** Forgets the buffer (its memory is about to be freed with the suspendable arena). */
    public void release() {
        seg = null;
    }
}
