package io.jccl.internal.executor;

import io.jccl.JcclException;
import io.jccl.internal.base.CommHealth;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Completion of one launch (a call or a group's work on one communicator): counts the channel items still running,
 * keeps the first error, and releases the waiting caller or completes the caller's future.
 *
 * <p>Owned by: created by the launching thread, counted down by channel threads. Mirrors: the host side of NCCL's
 * stream completion (what cudaStreamSynchronize waits for).
 */
public final class Completion {
    private final AtomicInteger remaining = new AtomicInteger(1);
    private final CompletableFuture<Void> future;
    private volatile JcclException error;
    private volatile Thread waiter;

    /** @param future completed when all items finish, or null for a synchronous caller that will {@link #await} */
    public Completion(CompletableFuture<Void> future) {
        this.future = future;
    }

    /** Registers {@code n} more items before they are submitted. */
    public void add(int n) {
        remaining.addAndGet(n);
    }

    /** Ends submission (balances the initial count of one). */
    public void sealed() {
        itemDone(null);
    }

    /** One item finished, with an error or null. */
    public void itemDone(JcclException e) {
        if (e != null && error == null) {
            error = e;
        }
        if (remaining.decrementAndGet() == 0) {
            if (future != null) {
                if (error != null) {
                    future.completeExceptionally(error);
                } else {
                    future.complete(null);
                }
            }
            Thread t = waiter;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    public boolean isDone() {
        return remaining.get() == 0;
    }

    /** Waits until every item finished; throws the first error. */
    public void await(CommHealth health) {
        if (remaining.get() != 0) {
            waiter = Thread.currentThread();
            int spins = 0;
            while (remaining.get() != 0) {
                if (spins < 200) {
                    spins++;
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(this, 200_000L);
                }
            }
            waiter = null;
        }
        JcclException e = error;
        if (e != null) {
            throw new JcclException(e.result(), e.getMessage(), e);
        }
    }

    public JcclException error() {
        return error;
    }
}
