package io.jccl.internal.transport.net;

import io.jccl.internal.transport.SlotWords;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * {@link SlotWords} over two separate 8-byte words, each the first bytes of its own segment: the counters of a GPU
 * connector, which live in two different control blocks of pinned host memory that a kernel polls with acquire
 * loads and writes with system-scope release stores.
 *
 * <p>Owned by: the proxy thread reads one word and writes the other; the kernel does the opposite. Mirrors: the
 * head and tail pointers NCCL's net transport hands the proxy (connFifo in host memory).
 */
final class SplitWords implements SlotWords {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private final MemorySegment tail;
    private final MemorySegment head;

    /** {@code tail} and {@code head}: 8-aligned words of at least 8 bytes. */
    SplitWords(MemorySegment tail, MemorySegment head) {
        this.tail = tail;
        this.head = head;
    }

    @Override
    public long tail() {
        return (long) LONG.getAcquire(tail, 0L);
    }

    @Override
    public void releaseTail(long steps) {
        LONG.setRelease(tail, 0L, steps);
    }

    @Override
    public long head() {
        return (long) LONG.getAcquire(head, 0L);
    }

    @Override
    public void releaseHead(long steps) {
        LONG.setRelease(head, 0L, steps);
    }
}
