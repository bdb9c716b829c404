package io.jccl.internal.transport.shm;

import io.jccl.internal.base.Sleeper;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Sleeps on the low 32 bits of a FIFO counter ({@code head} or {@code tail}) in shared memory: raises its waiter flag,
 * re-checks, and futex-waits while the counter is unchanged; the other process's {@link FutexWaker} sees the flag
 * after publishing and wakes it. Falls back to short parks where futexes are unavailable.
 *
 * <p>Owned by: the one thread waiting on that counter. Mirrors: the sleep half of a futex-based event count.
 */
final class FutexSleeper implements Sleeper {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final long LOW_WORD = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 0 : 4;

    private final MemorySegment ctrl;
    private final long flagOff;
    private final MemorySegment word;
    private final MemorySegment timespec;

    FutexSleeper(MemorySegment ctrl, long flagOff, long counterOff, Arena arena) {
        this.ctrl = ctrl;
        this.flagOff = flagOff;
        this.word = ctrl.asSlice(counterOff + LOW_WORD, 4);
        this.timespec = Futex.newTimespec(arena);
    }

    @Override
    public void sleep(BooleanSupplier stillWaiting, long maxNs) {
        if (!Futex.available()) {
            if (stillWaiting.getAsBoolean()) {
                LockSupport.parkNanos(Math.min(maxNs, 50_000));
            }
            return;
        }
        INT.setVolatile(ctrl, flagOff, 1);
        int seen = (int) INT.getVolatile(word, 0L);
        if (stillWaiting.getAsBoolean()) {
            Futex.await(word, seen, Math.max(maxNs, 100_000), timespec);
        }
        INT.setVolatile(ctrl, flagOff, 0);
    }

    @Override
    public void wake() {
        // woken through shared memory by the peer's FutexWaker
    }
}
