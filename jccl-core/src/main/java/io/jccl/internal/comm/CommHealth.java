package io.jccl.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Whether a communicator is still usable: the first failure (a lost peer, a timeout, an abort) is recorded once,
 * every wait in every thread polls {@link #isBroken()}, and listeners (the proxy, the transports) are told so they
 * can release what they hold. Owned by: shared by all threads of one communicator. Mirrors: NCCL's abortFlag and
 * asyncResult.
 */
public final class CommHealth {
    private final AtomicReference<JcclException> failure = new AtomicReference<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean broken;
    private volatile boolean closing;
    private final java.util.concurrent.atomic.AtomicIntegerArray peerClosing;
    private volatile boolean anyPeerClosing;

    public CommHealth(int nRanks) {
        this.peerClosing = new java.util.concurrent.atomic.AtomicIntegerArray(nRanks);
    }

    /** Records that {@code peer} started closing the communicator (it finished all its operations, or gave up). */
    public void peerClosing(int peer) {
        peerClosing.set(peer, 1);
        anyPeerClosing = true;
    }

    /** True if {@code peer} (or, for -1, any peer) has started closing. */
    public boolean isPeerClosing(int peer) {
        return peer < 0 ? anyPeerClosing : peerClosing.get(peer) != 0;
    }

    /** True once the communicator failed or was aborted; cheap enough for every spin of a wait loop. */
    public boolean isBroken() {
        return broken;
    }

    /** Marks an orderly shutdown: from now on a peer closing its connections is expected, not a failure. */
    public void beginClose() {
        closing = true;
    }

    /** True once an orderly shutdown started. */
    public boolean isClosing() {
        return closing;
    }

    /** The first failure, or null. */
    public JcclException failure() {
        return failure.get();
    }

    /** Records {@code e} if it is the first failure and tells the listeners; returns the failure in effect. */
    public JcclException fail(JcclException e) {
        if (failure.compareAndSet(null, e)) {
            broken = true;
            for (Runnable r : listeners) {
                try {
                    r.run();
                } catch (RuntimeException ignored) {
                    // a listener failing while we tear down must not hide the original failure
                }
            }
        }
        return failure.get();
    }

    /** Runs {@code r} when the communicator fails (at once if it already has). */
    public void onFailure(Runnable r) {
        listeners.add(r);
        if (broken) {
            r.run();
        }
    }

    /** Throws the recorded failure (as a new exception whose message says where it was seen) if there is one. */
    public void check(String where) {
        JcclException f = failure.get();
        if (f != null) {
            throw new JcclException(f.result(), where + ": communicator is broken: " + f.getMessage(), f);
        }
    }

    /** The exception a wait throws when it notices the failure. */
    public JcclException brokenError(String where) {
        JcclException f = failure.get();
        Result r = f == null ? Result.INTERNAL_ERROR : f.result();
        return new JcclException(r, where + ": " + (f == null ? "communicator broken" : f.getMessage()), f);
    }
}
