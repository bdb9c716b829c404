package io.jccl.internal.transport.shm;

import io.jccl.internal.base.Waker;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * After a worker published a counter in shared memory (with a full fence), wakes the peer sleeping on it if its
 * waiter flag is up; costs one load of a line that is only written when the peer sleeps.
 * Owned by: the publishing thread. Mirrors: the wake half of a futex-based event count.
 */
final class FutexWaker implements Waker {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final long LOW_WORD = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 0 : 4;

    private final MemorySegment ctrl;
    private final long flagOff;
    private final MemorySegment word;

    FutexWaker(MemorySegment ctrl, long flagOff, long counterOff) {
        this.ctrl = ctrl;
        this.flagOff = flagOff;
        this.word = ctrl.asSlice(counterOff + LOW_WORD, 4);
    }

    @Override
    public void wake() {
        if ((int) INT.getVolatile(ctrl, flagOff) != 0 && Futex.available()) {
            Futex.wakeAll(word);
        }
    }
}
