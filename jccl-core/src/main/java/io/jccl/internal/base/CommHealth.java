package io.jccl.internal.base;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Whether a communicator is still usable: the first failure (a lost peer, a timeout, an abort) is recorded once,
 * every wait in every thread polls {@link #isBroken()}, and listeners (the proxy, the transports) are told so they
 * can release what they hold. It also keeps what status queries read: which peers were lost, whether the
 * communicator was revoked, and the most recent wait that had to sleep (written once per slow wait, never per spin).
 * Owned by: shared by all threads of one communicator. Mirrors: NCCL's abortFlag, revokedFlag and asyncResult.
 */
public final class CommHealth {
    private final AtomicReference<JcclException> failure = new AtomicReference<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean broken;
    private volatile boolean closing;
    private final java.util.concurrent.atomic.AtomicIntegerArray peerClosing;
    private volatile boolean anyPeerClosing;
    private final java.util.concurrent.atomic.AtomicIntegerArray lost;
    private volatile boolean revoked;
    private volatile JcclException diagnosis;
    private boolean diagnosisPrimary;
    private volatile boolean rootCauseFinal;
    private volatile String rootCause;
    private volatile Object lastWait;
    private volatile long lastWaitNs;

    public CommHealth(int nRanks) {
        this.peerClosing = new java.util.concurrent.atomic.AtomicIntegerArray(nRanks);
        this.lost = new java.util.concurrent.atomic.AtomicIntegerArray(nRanks);
    }

    /**
     * Notes that a wait for {@code what} is about to sleep (its spin phase is over); status queries show it. Called
     * at most once per wait, so it costs nothing on fast paths; {@code what}'s text is built only when queried.
     */
    public void noteWait(Object what) {
        lastWaitNs = System.nanoTime();
        lastWait = what;
    }

    /** The most recent wait that slept, or null. */
    public Object lastWait() {
        return lastWait;
    }

    /** When {@link #lastWait()} began to sleep ({@link System#nanoTime()}). */
    public long lastWaitNs() {
        return lastWaitNs;
    }

    /** Records that {@code peer} is gone (killed, crashed, stopped answering, or left after a failure). */
    public void peerLost(int peer) {
        lost.set(peer, 1);
    }

    /** Ranks known to be gone, ascending. */
    public int[] lostRanks() {
        int n = 0;
        for (int p = 0; p < lost.length(); p++) {
            n += lost.get(p);
        }
        int[] r = new int[n];
        for (int p = 0, i = 0; p < lost.length() && i < n; p++) {
            if (lost.get(p) != 0) {
                r[i++] = p;
            }
        }
        return r;
    }

    /** True if {@code peer} is known to be gone. */
    public boolean isLost(int peer) {
        return lost.get(peer) != 0;
    }

    /**
     * Revokes the communicator: in-flight and later operations fail, resources stay so it can still be shrunk, split
     * or closed (NCCL's {@code ncclCommRevoke}).
     */
    public JcclException revoke(String why) {
        JcclException e = fail(new JcclException(Result.ABORTED, why));
        revoked = true;
        return e;
    }

    /** True once {@link #revoke} was called. */
    public boolean isRevoked() {
        return revoked;
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

    /**
     * Records the diagnosis of a lost peer: the first failure if there was none, otherwise it replaces a symptom
     * recorded first (a data connection that dropped, a peer's forwarded error, a timeout), so waits that throw from
     * now on, later calls and {@link #failure()} name the lost rank. A {@code primary} diagnosis (this rank saw the
     * peer die, go silent or vanish, or was told so) replaces a secondary one (a peer that left after a failure of
     * its own); otherwise the first diagnosis wins. A local abort or a revocation is never replaced.
     */
    public synchronized void diagnose(JcclException rootCause, boolean primary) {
        record(rootCause, primary, false);
    }

    /**
     * Records {@code rootCause} (ranks that made different calls) as the failure in effect: it outranks every other
     * diagnosis, a lost peer's included (the peer left because of it), but not a local abort, a revocation or an
     * earlier root cause. Returns whether it took effect.
     */
    public synchronized boolean supersede(JcclException rootCause) {
        return record(rootCause, true, true);
    }

    /**
     * Makes {@code rootCause} the failure in effect (the first failure if there was none), unless a local abort, a
     * revocation or a final root cause stands, or ({@code outranksDiagnoses} false) a diagnosis at least as strong
     * was recorded first; returns whether it took effect.
     */
    private boolean record(JcclException rootCause, boolean primary, boolean outranksDiagnoses) {
        if (failure.get() == null) {
            fail(rootCause);
        }
        JcclException cur = failure.get();
        if (revoked || rootCauseFinal || cur.result() == Result.ABORTED && cur != rootCause) {
            return false;
        }
        if (!outranksDiagnoses && diagnosis != null && (diagnosisPrimary || !primary)) {
            return false;
        }
        if (cur != rootCause) {
            rootCause.addSuppressed(cur);
            failure.set(rootCause);
        }
        diagnosis = rootCause;
        diagnosisPrimary = primary;
        rootCauseFinal = outranksDiagnoses;
        return true;
    }

    /** True once {@link #supersede} recorded the root cause: nothing replaces it. */
    public boolean isRootCauseFinal() {
        return rootCauseFinal;
    }

    /** True when the diagnosis in effect comes from this rank's own observation (or a notice of one). */
    public synchronized boolean isDiagnosisPrimary() {
        return diagnosis != null && diagnosisPrimary;
    }

    /** The diagnosis of a lost peer, or null. */
    public JcclException diagnosis() {
        return diagnosis;
    }

    /**
     * Adopts a peer's account of the failure that started it all (the reason in its goodbye), unless this rank
     * already knows one: it leads this rank's messages and is what this rank's own goodbye passes on, so a failure
     * that travels from rank to rank keeps naming the rank that failed first instead of the last one that left.
     */
    public void adoptRootCause(String text) {
        if (rootCause == null) {
            synchronized (this) {
                if (rootCause == null) {
                    rootCause = text;
                }
            }
        }
    }

    /**
     * The failure that started it all, as this rank knows it: a peer's account adopted with {@link #adoptRootCause},
     * else this rank's failure in effect, led by {@code "rank <rank>: "}; null while the communicator is healthy.
     */
    public String rootCause(int rank) {
        String r = rootCause;
        if (r != null) {
            return r;
        }
        JcclException f = failure.get();
        return f == null ? null : f.getMessage().startsWith("rank ") ? f.getMessage()
                : "rank " + rank + ": " + f.getMessage();
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
        if (revoked && f != null) {
            throw new JcclException(Result.INVALID_USAGE, where + ": communicator was revoked (" + f.getMessage()
                    + "); only shrink, split, abort and close are allowed", f);
        }
        if (f != null) {
            throw new JcclException(f.result(), f.getMessage() + " [" + where + " refused: the communicator is broken]",
                    f);
        }
    }

    /**
     * The exception a wait throws when it notices the failure: the cause first (what failed, on which rank), then
     * where this rank stood.
     */
    public JcclException brokenError(String where) {
        JcclException f = failure.get();
        Result r = f == null ? Result.INTERNAL_ERROR : f.result();
        return new JcclException(r, (f == null ? "communicator broken" : f.getMessage()) + " [this rank stopped in "
                + where + "]", f);
    }
}
