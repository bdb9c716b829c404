package io.jccl.internal.base;

import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Sleeps with {@link LockSupport#parkNanos} and is woken by {@link LockSupport#unpark} from a thread of the same
 * JVM (the proxy thread, a channel worker). Owned by: one waiting thread; {@link #wake} from any thread.
 */
public final class ParkSleeper implements Sleeper {
    private volatile Thread parked;

    @Override
    public void sleep(BooleanSupplier stillWaiting, long maxNs) {
        parked = Thread.currentThread();
        VarHandle.fullFence();
        if (stillWaiting.getAsBoolean()) {
            LockSupport.parkNanos(this, maxNs);
        }
        parked = null;
    }

    @Override
    public void wake() {
        Thread t = parked;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
