package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.CommHealth;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Messages that arrived from peers, by (peer, tag), in arrival order: NCCL's "unexpected connections" queue, so a
 * message that arrives before anyone asks for it is kept, never dropped. Owned by: reader threads put, the
 * communicator's threads take.
 */
final class Mailbox {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<Long, ArrayDeque<byte[]>> queues = new HashMap<>();
    private final boolean[] peerClosed;
    private final String[] peerCloseReason;
    private final int rank;
    private boolean closed;
    private final Map<Integer, java.util.function.BiConsumer<Integer,
            byte[]>> listeners = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.Set<Integer> consumed = new java.util.HashSet<>();

    Mailbox(int rank, int nRanks) {
        this.rank = rank;
        this.peerClosed = new boolean[nRanks];
        this.peerCloseReason = new String[nRanks];
    }

    /**
     * Calls {@code l} (on the reader thread) for each message with {@code tag}: in addition to queueing it, or
     * instead of queueing it when {@code consume} (periodic messages nobody takes, such as heartbeats).
     */
    void listen(int tag, java.util.function.BiConsumer<Integer, byte[]> l, boolean consume) {
        java.util.List<java.util.Map.Entry<Integer, byte[]>> early = new java.util.ArrayList<>();
        lock.lock();
        try {
            listeners.put(tag, l);
            if (consume) {
                consumed.add(tag);
            }
            for (var e : queues.entrySet()) {
                if ((int) (e.getKey() & 0xffffffffL) == tag) {
                    for (byte[] b : e.getValue()) {
                        early.add(java.util.Map.entry((int) (e.getKey() >>> 32), b));
                    }
                    if (consume) {
                        e.getValue().clear();
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        for (var e : early) {
            l.accept(e.getKey(), e.getValue());
        }
    }

    void put(int peer, int tag, byte[] payload) {
        java.util.function.BiConsumer<Integer, byte[]> l;
        lock.lock();
        try {
            l = listeners.get(tag);
            if (l == null || !consumed.contains(tag)) {
                queues.computeIfAbsent(key(peer, tag), k -> new ArrayDeque<>()).add(payload);
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (l != null) {
            l.accept(peer, payload);
        }
    }

    void peerClosed(int peer, String reason) {
        lock.lock();
        try {
            peerClosed[peer] = true;
            peerCloseReason[peer] = reason;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** This rank's bootstrap closed: every wait ends. */
    void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void wakeAll() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the oldest message from {@code peer} with {@code tag}, waiting up to {@code timeoutNs}. With a null
     * {@code health} a broken communicator does not end the wait (shrink after a failure talks over it), but the
     * peer's departure, this side's close and the deadline still do.
     */
    byte[] take(int peer, int tag, long timeoutNs, CommHealth health, String what) {
        long deadline = System.nanoTime() + timeoutNs;
        boolean noted = false;
        lock.lock();
        try {
            while (true) {
                ArrayDeque<byte[]> q = queues.get(key(peer, tag));
                if (q != null && !q.isEmpty()) {
                    return q.poll();
                }
                if (health != null && health.isBroken()) {
                    throw health.brokenError("rank " + rank + " waiting for " + what + " from rank " + peer);
                }
                if (closed) {
                    throw new JcclException(Result.ABORTED, "rank " + rank + " waiting for " + what + " from rank "
                            + peer + ": this rank's communicator was closed or aborted");
                }
                if (peerClosed[peer]) {
                    throw new JcclException(Result.REMOTE_ERROR, "rank " + rank + " waiting for " + what + " from rank "
                            + peer + ": rank " + peer + " closed its bootstrap connection (" + peerCloseReason[peer]
                            + "); it exited, aborted or failed");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new JcclException(Result.TIMEOUT, "rank " + rank + " waited "
                            + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms for " + what + " from rank " + peer
                            + " and got nothing; is rank " + peer + " stuck or calling something else?");
                }
                if (!noted && health != null) {
                    noted = true;
                    health.noteWait("rank " + rank + " waiting for " + what + " from rank " + peer);
                }
                changed.awaitNanos(Math.min(left, 100_000_000L));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcclException(Result.SYSTEM_ERROR, "interrupted waiting for " + what + " from rank " + peer, e);
        } finally {
            lock.unlock();
        }
    }

    private static long key(int peer, int tag) {
        return ((long) peer << 32) | (tag & 0xffffffffL);
    }
}
