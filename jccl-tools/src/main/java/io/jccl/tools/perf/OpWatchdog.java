package io.jccl.tools.perf;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code -T}: fires once when any armed operation runs longer than the timeout (nccl-tests aborts the communicators
 * and prints {@code Test timeout}). Runners {@link #arm()} before an operation and {@link #disarm()} after it; a
 * daemon thread polls every few milliseconds. Shared by the rank threads of one process; the poller owns the
 * firing.
 */
public final class OpWatchdog implements AutoCloseable {
    private final long timeoutNs;
    private final Runnable onTimeout;
    private final AtomicBoolean fired = new AtomicBoolean();
    private final Thread poller;
    private volatile long armedAtNs;
    private volatile boolean closed;

    /**
     * @param onTimeout run once, on the watchdog thread, when an operation passes the timeout
     */
    public OpWatchdog(double timeoutSec, Runnable onTimeout) {
        if (!(timeoutSec > 0)) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeoutSec);
        }
        this.timeoutNs = (long) (timeoutSec * 1e9);
        this.onTimeout = onTimeout;
        this.poller = Thread.ofPlatform().name("perf-watchdog").daemon().start(this::poll);
    }

    /** Marks the start of an operation. */
    public void arm() {
        armedAtNs = System.nanoTime() | 1;   // never 0, which means disarmed
    }

    /** Marks its end. */
    public void disarm() {
        armedAtNs = 0;
    }

    /** True once the timeout has fired. */
    public boolean fired() {
        return fired.get();
    }

    private void poll() {
        long sleepMs = Math.max(1, Math.min(50, TimeUnit.NANOSECONDS.toMillis(timeoutNs) / 10));
        while (!closed) {
            long armed = armedAtNs;
            if (armed != 0 && System.nanoTime() - armed > timeoutNs && fired.compareAndSet(false, true)) {
                onTimeout.run();
                return;
            }
            try {
                Thread.sleep(sleepMs);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        poller.interrupt();
    }
}
