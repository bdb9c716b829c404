package io.jccl.internal.ras;

import io.jccl.Collective;
import io.jccl.internal.ras.RasMessages.PeerStatus;

/**
 * Decides from a peer's heartbeat whether this rank and the peer made calls that cannot go together, and says which:
 * <ul>
 *   <li>two collective calls with one number that differ (collective, count, type, op or root): certain, whatever
 *   the algorithm, since every rank must make the same collective calls in the same order;</li>
 *   <li>the peer waits in a send or receive with this rank while this rank waits in a collective (each with nothing
 *   else in flight, both for a while): the collective cannot finish without the peer, and the peer's transfer
 *   cannot finish until this rank has left the collective.</li>
 * </ul>
 * It never guesses: calls it cannot compare (too old for the log, not made yet) are passed over.
 *
 * <p>Owned by: stateless; called on bootstrap reader threads. Mirrors: nothing in NCCL (see {@link CallLog}).
 */
final class CallMatch {
    private static final String RULE = "every rank must make the same collective calls, with the same count, "
            + "type, op and root, in the same order";

    private CallMatch() {
    }

    /**
     * The finding, led by what the peer called, or null when nothing is wrong as far as the two can tell;
     * {@code ownStatus} is asked only when the peer waits in a transfer with this rank.
     */
    static String compare(int me, CallLog mine, java.util.function.Supplier<PeerStatus> ownStatus, int peer,
                          PeerStatus theirs, int crossedWaitMs) {
        CallLog.Entry[] d = mine.firstDifference(theirs.calls());
        if (d != null && !d[0].describe().equals(d[1].describe())) {
            return "rank " + peer + " called " + d[1].describe() + " where rank " + me + " called " + d[0].describe()
                    + " (collective call " + d[0].number() + " of the communicator); " + RULE;
        }
        if (d != null) {
            return "rank " + peer + " and rank " + me + " made different collective calls before their call "
                    + d[0].number() + " (" + d[0].describe() + " on both; the calls that differed are older than the "
                    + CallLog.DEPTH + " each rank keeps): " + RULE;
        }
        if (!waitsAlone(theirs, crossedWaitMs) || !isP2p(theirs.op()) || theirs.peer() != me) {
            return null;
        }
        PeerStatus own = ownStatus.get();
        if (waitsAlone(own, crossedWaitMs) && !isP2p(own.op())) {
            CallLog.Entry c = mine.find(mine.last());
            String coll = c == null ? own.op().ncclName() : c.describe() + " (collective call " + c.number() + ")";
            return "rank " + peer + " waits in " + theirs.op().ncclName() + (theirs.op() == Collective.SEND
                    ? " to" : " from") + " rank " + me + " while rank " + me + " waits in " + coll
                    + ": each waits for the other; every rank must make the same collective calls in the same order, "
                    + "and each send needs the peer's receive";
        }
        return null;
    }

    /** In flight for at least {@code ms}, with every earlier operation complete. */
    private static boolean waitsAlone(PeerStatus s, int ms) {
        return s.inFlight() && s.inFlightMs() >= ms && s.completedSeq() == s.issuedSeq() - 1;
    }

    private static boolean isP2p(Collective c) {
        return c == Collective.SEND || c == Collective.RECV;
    }
}
