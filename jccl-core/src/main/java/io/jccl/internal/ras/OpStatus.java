package io.jccl.internal.ras;

import io.jccl.Collective;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What one rank of a communicator is doing, for failure messages and status queries: the sequence number and kind
 * of the last operation issued and the highest one known complete. The calling thread writes two fields per
 * operation (no allocation, no clock read); readers (the heartbeat thread, error paths) take a {@link #snapshot()}.
 *
 * <p>Owned by: written by the communicator's calling thread (and future callbacks for completions), read by any.
 * Mirrors: the op counters NCCL's RAS collects from each rank.
 */
public final class OpStatus {
    private static final Collective[] COLLECTIVES = Collective.values();
    private static final java.lang.invoke.VarHandle ISSUED_SEQ;
    private static final java.lang.invoke.VarHandle ISSUED_COLL;
    private static final java.lang.invoke.VarHandle ISSUED_PEER;

    static {
        try {
            java.lang.invoke.MethodHandles.Lookup l = java.lang.invoke.MethodHandles.lookup();
            ISSUED_SEQ = l.findVarHandle(OpStatus.class, "issuedSeq", long.class);
            ISSUED_COLL = l.findVarHandle(OpStatus.class, "issuedColl", int.class);
            ISSUED_PEER = l.findVarHandle(OpStatus.class, "issuedPeer", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // written with release stores by the issuing thread, read with volatile (acquire) loads by status queries
    private volatile long issuedSeq;
    private volatile int issuedColl = -1;
    private volatile int issuedPeer = -1;
    private final AtomicLong completedSeq = new AtomicLong();

    /** A consistent-enough view: the issued op is complete when {@code completedSeq >= issuedSeq}. */
    public record Snapshot(long issuedSeq, Collective issued, int peer, long completedSeq) {
        /** True while the last issued operation has not completed. */
        public boolean inFlight() {
            return issuedSeq > completedSeq && issued != null;
        }

        /** "AllReduce (seq 58)" or "idle (last op seq 57)". */
        public String describe() {
            return inFlight() ? issued.ncclName() + " (seq " + issuedSeq + ")" : "idle (last op seq " + completedSeq
                    + ")";
        }
    }

    /** Operation {@code seq} of kind {@code c} (with {@code peer} for a send or receive, else -1) was issued. */
    public void issued(long seq, Collective c, int peer) {
        ISSUED_COLL.setRelease(this, c.ordinal());
        ISSUED_PEER.setRelease(this, peer);
        ISSUED_SEQ.setRelease(this, seq);
    }

    /**
     * Operation {@code seq} completed on the issuing thread with nothing else in flight (the inline path): a release
     * store instead of the compare-and-set loop other completions need.
     */
    public void completedInline(long seq) {
        completedSeq.lazySet(seq);
    }

    /** Operation {@code seq} (and so every earlier one) completed on this rank. */
    public void completed(long seq) {
        long c;
        while (seq > (c = completedSeq.get())) {
            if (completedSeq.compareAndSet(c, seq)) {
                return;
            }
        }
    }

    public Snapshot snapshot() {
        long seq = issuedSeq;
        int coll = issuedColl;
        return new Snapshot(seq, coll < 0 ? null : COLLECTIVES[coll], issuedPeer, completedSeq.get());
    }
}
