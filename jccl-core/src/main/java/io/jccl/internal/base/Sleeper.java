package io.jccl.internal.base;

import java.util.function.BooleanSupplier;

/**
 * How a waiting thread sleeps once spinning stopped paying off, and how the party it waits for wakes it: a
 * {@link ParkSleeper} within one process, a futex on the shared word across processes.
 * Owned by: the single waiting thread ({@link #sleep}); {@link #wake} from any thread.
 */
public interface Sleeper {
    /** Sleeps at most {@code maxNs}, unless {@code stillWaiting} turns false after registering for a wake-up. */
    void sleep(BooleanSupplier stillWaiting, long maxNs);

    /** Wakes the sleeper (no-op for sleepers woken through shared memory). */
    void wake();
}
