package io.jccl.internal.base;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A shared arena that counts what is allocated in it, and what is mapped into it ({@link #mapped}: shared-memory
 * files), into a {@link MemoryLedger}; closing it frees all of that at once and takes it off the ledger. A
 * communicator's allocation sites use one, so its memory statistics are what was allocated.
 *
 * <p>Any thread (as {@link Arena#ofShared()}). Mirrors: NCCL's allocation wrappers (ncclCudaCalloc, ncclShmOpen) that
 * account every buffer in the communicator's memory manager.
 */
public final class CountedArena implements Arena {
    private final Arena arena = Arena.ofShared();
    private final MemoryLedger ledger;
    private final AtomicLongArray counted = new AtomicLongArray(MemoryLedger.Kind.values().length);

    public CountedArena(MemoryLedger ledger) {
        this.ledger = ledger;
    }

    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        MemorySegment s = arena.allocate(byteSize, byteAlignment);
        count(MemoryLedger.Kind.HOST, byteSize);
        return s;
    }

    /** Counts {@code bytes} of {@code kind} that were mapped into this arena (a file mapping). */
    public void mapped(MemoryLedger.Kind kind, long bytes) {
        count(kind, bytes);
    }

    private void count(MemoryLedger.Kind kind, long bytes) {
        counted.addAndGet(kind.ordinal(), bytes);
        ledger.add(kind, bytes);
    }

    /** This arena's own bytes (every kind but {@link MemoryLedger.Kind#PEER_MAPPED}) while it is open. */
    public long ownBytes() {
        long sum = 0;
        for (MemoryLedger.Kind k : MemoryLedger.Kind.values()) {
            sum += k == MemoryLedger.Kind.PEER_MAPPED ? 0 : counted.get(k.ordinal());
        }
        return sum;
    }

    /** The same memory without counting: for memory the application owns (buffers from allocate()). */
    public Arena uncounted() {
        return arena;
    }

    @Override
    public MemorySegment.Scope scope() {
        return arena.scope();
    }

    /** Frees everything allocated or mapped in this arena and takes it off the ledger. */
    @Override
    public void close() {
        arena.close();
        for (MemoryLedger.Kind k : MemoryLedger.Kind.values()) {
            ledger.remove(k, counted.getAndSet(k.ordinal(), 0));
        }
    }
}
