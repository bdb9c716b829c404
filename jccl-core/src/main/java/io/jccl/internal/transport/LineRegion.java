package io.jccl.internal.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The memory of one flag-in-line protocol on a connector: {@link ConnFifo#NSTEPS} slots of flagged lines plus a
 * control block with the receiver's {@code head} (credits), the sender's {@code tail} (only used to sleep on) and a
 * waiter flag for each, each word on its own 64-byte line. Owned by: one sending and one receiving thread.
 * Mirrors: the LL / LL128 buffers of an NCCL connector.
 */
public final class LineRegion {
    public static final long CTRL_BYTES = 256;
    public static final long HEAD_OFF = 0;
    public static final long TAIL_OFF = 64;
    public static final long HEAD_WAITER_OFF = 128;
    public static final long TAIL_WAITER_OFF = 192;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final LineFormat format;
    private final MemorySegment ctrl;
    private final MemorySegment[] slots = new MemorySegment[ConnFifo.NSTEPS];

    public LineRegion(LineFormat format, MemorySegment ctrl, MemorySegment data) {
        this.format = format;
        this.ctrl = ctrl;
        for (int i = 0; i < ConnFifo.NSTEPS; i++) {
            slots[i] = data.asSlice((long) i * format.slotBytes(), format.slotBytes());
        }
    }

    public LineFormat format() {
        return format;
    }

    public MemorySegment ctrl() {
        return ctrl;
    }

    MemorySegment slot(long step) {
        return slots[(int) (step & (ConnFifo.NSTEPS - 1))];
    }

    long head() {
        return (long) LONG.getAcquire(ctrl, HEAD_OFF);
    }

    long headVolatile() {
        return (long) LONG.getVolatile(ctrl, HEAD_OFF);
    }

    void releaseHead(long v) {
        LONG.setRelease(ctrl, HEAD_OFF, v);
    }

    void releaseTail(long v) {
        LONG.setRelease(ctrl, TAIL_OFF, v);
    }

    /** The flag of {@code line} in the slot of {@code step}. */
    long flag(long step, int line) {
        return (long) LONG.getAcquire(slot(step), (long) line * format.lineBytes + format.dataBytes);
    }

    void releaseFlag(MemorySegment slot, int line, long flag) {
        LONG.setRelease(slot, (long) line * format.lineBytes + format.dataBytes, flag);
    }
}
