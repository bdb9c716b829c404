package io.jccl.internal.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * The memory of one connector: {@link #NSTEPS} data slots and a control block with the consumer's {@code head},
 * the producer's {@code tail} (each on its own 128-byte line) and each slot's byte count. The producer writes a slot,
 * its size, then releases {@code tail}; the consumer acquires {@code tail}, reads, then releases {@code head}.
 * Counters only grow (no resets, no ABA). The same layout serves a FIFO in local memory moved by the proxy (net) and
 * a FIFO in a shared mapping written by a peer process (shm).
 *
 * <p>Owned by: written by exactly one producer thread and one consumer thread. Mirrors: NCCL's ncclSendMem /
 * ncclRecvMem ({@code head}, {@code tail}, {@code connFifo[NCCL_STEPS].size}) and the Simple protocol's buffer.
 */
public final class ConnFifo implements SlotWords {
    /** Slots per connector, NCCL's {@code NCCL_STEPS}. */
    public static final int NSTEPS = 8;
    public static final long HEAD_OFF = 0;
    /** Set by a sender that attached to a receiver's shared FIFO. */
    public static final long ATTACHED_OFF = 64;
    public static final long TAIL_OFF = 128;
    static final long SIZES_OFF = 256;
    /** Per-slot tag: the fingerprint of the call that produced the step (0: none). */
    static final long TAGS_OFF = 320;
    /** Non-zero while the producer sleeps waiting for {@code head} (futex-based sleepers). */
    public static final long HEAD_WAITER_OFF = 384;
    /** Non-zero while the consumer sleeps waiting for {@code tail}. */
    public static final long TAIL_WAITER_OFF = 448;
    /** Bytes of the control block. */
    public static final long CTRL_BYTES = 512;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment ctrl;
    private final MemorySegment[] slots = new MemorySegment[NSTEPS];
    private final ByteBuffer[] slotBuffers = new ByteBuffer[NSTEPS];
    private final int stepBytes;
    private final int strideBytes;
    private final MemorySegment data;

    /** A FIFO over existing memory ({@code ctrl}: {@link #CTRL_BYTES}; {@code data}: NSTEPS * stepBytes). */
    public ConnFifo(MemorySegment ctrl, MemorySegment data, int stepBytes) {
        this(ctrl, data, stepBytes, stepBytes);
    }

    /**
     * A FIFO whose slots start every {@code strideBytes} (at least {@code stepBytes}): the bytes past a slot's
     * {@code stepBytes} are room for a transport's trailer.
     */
    public ConnFifo(MemorySegment ctrl, MemorySegment data, int stepBytes, int strideBytes) {
        this.ctrl = ctrl;
        this.stepBytes = stepBytes;
        this.strideBytes = strideBytes;
        this.data = data;
        for (int i = 0; i < NSTEPS; i++) {
            slots[i] = data.asSlice((long) i * strideBytes, stepBytes);
            slotBuffers[i] = data.isNative() ? slots[i].asByteBuffer() : null;
        }
    }

    /** A FIFO in fresh native memory of {@code arena}, zeroed. */
    public static ConnFifo allocate(Arena arena, int stepBytes) {
        MemorySegment ctrl = arena.allocate(CTRL_BYTES, 128);
        MemorySegment data = arena.allocate((long) NSTEPS * stepBytes, 4096);
        return new ConnFifo(ctrl, data, stepBytes);
    }

    /** A FIFO in fresh native memory whose slots are {@code strideBytes} apart (see the constructor). */
    public static ConnFifo allocate(Arena arena, int stepBytes, int strideBytes) {
        MemorySegment ctrl = arena.allocate(CTRL_BYTES, 128);
        MemorySegment data = arena.allocate((long) NSTEPS * strideBytes, 4096);
        return new ConnFifo(ctrl, data, stepBytes, strideBytes);
    }

    /** All slots' memory. */
    public MemorySegment data() {
        return data;
    }

    /** Offset of the slot of {@code step} in {@link #data()}. */
    public long slotOffset(long step) {
        return (step & (NSTEPS - 1)) * (long) strideBytes;
    }

    /** The control block (head, tail, sizes, waiter flags). */
    public MemorySegment ctrl() {
        return ctrl;
    }

    public int stepBytes() {
        return stepBytes;
    }

    public MemorySegment slot(long step) {
        return slots[(int) (step & (NSTEPS - 1))];
    }

    /** The slot as a reusable ByteBuffer for socket I/O (native FIFOs only); callers reset position and limit. */
    public ByteBuffer slotBuffer(long step) {
        return slotBuffers[(int) (step & (NSTEPS - 1))];
    }

    @Override
    public long head() {
        return (long) LONG.getAcquire(ctrl, HEAD_OFF);
    }

    public long headVolatile() {
        return (long) LONG.getVolatile(ctrl, HEAD_OFF);
    }

    @Override
    public void releaseHead(long v) {
        LONG.setRelease(ctrl, HEAD_OFF, v);
    }

    @Override
    public long tail() {
        return (long) LONG.getAcquire(ctrl, TAIL_OFF);
    }

    public long tailVolatile() {
        return (long) LONG.getVolatile(ctrl, TAIL_OFF);
    }

    @Override
    public void releaseTail(long v) {
        LONG.setRelease(ctrl, TAIL_OFF, v);
    }

    /** Byte count of the slot of {@code step}; written before the tail that publishes it. */
    public int size(long step) {
        return (int) (long) LONG.get(ctrl, SIZES_OFF + 8 * (step & (NSTEPS - 1)));
    }

    public long tag(long step) {
        return (long) LONG.get(ctrl, TAGS_OFF + 8 * (step & (NSTEPS - 1)));
    }

    public void setTag(long step, long tag) {
        LONG.set(ctrl, TAGS_OFF + 8 * (step & (NSTEPS - 1)), tag);
    }

    public void setSize(long step, int bytes) {
        LONG.set(ctrl, SIZES_OFF + 8 * (step & (NSTEPS - 1)), (long) bytes);
    }
}
