package io.jccl.internal.base;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.concurrent.TimeUnit;

/**
 * The wait ladder every blocking point uses: spin with {@link Thread#onSpinWait()}, then {@link Thread#yield()},
 * then sleep in growing steps through a {@link Sleeper} (woken early by the producer). Every few iterations it
 * checks the communicator's health and the deadline, so no wait outlives a failure or its timeout.
 *
 * <p>Owned by: the single thread that waits on it (one per connector side); {@link #wake} may be called from any
 * thread. Mirrors: Agrona's BackoffIdleStrategy plus NCCL's abort-flag polling in waitPeer.
 */
public final class Backoff {
    static final long MAX_PARK_NS = 1_000_000L;
    static final boolean ADAPTIVE = io.jccl.internal.param.InternalProperties.ADAPTIVE_SPIN.get();

    /** How long a wait continues after the peer it depends on announced its close (data in flight arrives sooner). */
    static final long PEER_CLOSED_GRACE_NS = 1_000_000_000L;

    private final CommHealth health;
    private final long timeoutNs;
    private final int maxSpins;
    private final int minSpins;
    private final int yields;
    private int spins;
    private final int peer;
    private final Sleeper sleeper;
    private int iterations;
    private long startNs;
    private long parkNs;

    /** @param peer the rank this wait depends on, or -1 when it depends on several */
    public Backoff(CommHealth health, long timeoutNs, IdlePolicy policy, int peer) {
        this(health, timeoutNs, policy, peer, new ParkSleeper());
    }

    public Backoff(CommHealth health, long timeoutNs, IdlePolicy policy, int peer, Sleeper sleeper) {
        this.sleeper = sleeper;
        this.peer = peer;
        this.health = health;
        this.timeoutNs = timeoutNs;
        this.maxSpins = policy.spins();
        this.minSpins = Math.min(16, maxSpins);
        this.spins = maxSpins;
        this.yields = policy.yields();
    }

    /**
     * Starts a new wait. The spin budget adapts: it doubles (up to the policy's) after a wait that ended while
     * spinning and halves after one that had to sleep, so warm-up phases and busy cores (JIT, GC, oversubscription)
     * quickly stop burning the CPU the peer needs, while steady state keeps the latency of spinning.
     */
    public void reset() {
        if (ADAPTIVE && iterations > 0 && iterations <= spins + yields && spins < maxSpins) {
            spins = Math.min(maxSpins, spins * 2);
        }
        iterations = 0;
    }

    /**
     * One idle step of a wait for {@code what} (its {@code toString()} is only called when the wait fails); throws
     * when the communicator is broken or the deadline passed. {@code stillWaiting} is re-checked after registering
     * for a wake-up, before parking.
     */
    public void idle(java.util.function.BooleanSupplier stillWaiting, Object what) {
        int i = iterations++;
        if (i < spins) {
            Thread.onSpinWait();
            if ((i & 63) == 63 && health.isBroken()) {
                throw health.brokenError(String.valueOf(what));
            }
            return;
        }
        if (i == spins) {
            startNs = System.nanoTime();
            parkNs = 1_000;
            health.noteWait(what);
        }
        if (health.isBroken()) {
            throw health.brokenError(String.valueOf(what));
        }
        long waited = System.nanoTime() - startNs;
        if (!health.isClosing() && health.isPeerClosing(peer) && waited > (peer >= 0 ? PEER_CLOSED_GRACE_NS
                : 3 * PEER_CLOSED_GRACE_NS)) {
            String who = peer >= 0 ? "rank " + peer : "another rank";
            throw new JcclException(Result.REMOTE_ERROR, who + " closed the communicator while a peer still waited "
                    + "for it (" + who + " failed, or made fewer calls than its peers) [" + what + "]");
        }
        if (waited > timeoutNs) {
            throw new JcclException(Result.TIMEOUT, what + ": no progress for "
                    + TimeUnit.NANOSECONDS.toMillis(waited) + " ms (timeout " + TimeUnit.NANOSECONDS.toMillis(timeoutNs)
                    + " ms, JCCL_TIMEOUT_MS)");
        }
        if (i < spins + yields) {
            Thread.yield();
            return;
        }
        if (ADAPTIVE && i == spins + yields && spins > minSpins) {
            spins = Math.max(minSpins, spins / 2);
        }
        sleeper.sleep(stillWaiting, parkNs);
        parkNs = Math.min(parkNs * 2, MAX_PARK_NS);
    }

    /** Wakes the waiter if it sleeps (call after publishing, with a full fence between). */
    public void wake() {
        sleeper.wake();
    }
}
