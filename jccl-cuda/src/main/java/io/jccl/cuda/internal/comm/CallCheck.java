package io.jccl.cuda.internal.comm;

import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.internal.enqueue.GpuGroups;
import io.jccl.internal.base.Fingerprint;
import io.jccl.internal.enqueue.GroupState;
import io.jccl.internal.param.Params;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One GPU rank's check of each call against its peers' before the call is launched: through the {@link CallLedger}
 * the ranks share ({@link SharedControl}: an {@code initAll} clique's, or the processes' shared-memory file;
 * collectives, and sends paired with receives; a refused call stops every rank's kernels). With one process per GPU
 * and {@code JCCL_CHECK_CALLS=1}, collectives are compared over the host communicator instead (each call waits for
 * every rank to reach it; a refused call is refused on every rank, none launches it, and the communicator stays
 * usable); that is also the only check where the processes could not share memory. Inside a GPU group such a call
 * is recorded instead, and launched only when the group's end has compared every recorded call ({@link GpuGroups}),
 * so that one thread can drive several ranks of this process: a difference there drops the group's collectives on
 * every rank.
 *
 * <p>Thread: the rank's issuing thread. Mirrors nothing in NCCL (see {@link CallLedger}).
 */
public final class CallCheck implements GpuGroups.GroupCheck {
    /** Marks a group's call count among fingerprints (which are never negative). */
    private static final long GROUP_TAG = Long.MIN_VALUE;
    private final int rank;
    private final int nRanks;
    private final SharedControl control;
    private final CallLedger ledger;
    /** Tells the ranks on other hosts of this rank's calls (null on one host). */
    private final LedgerLink link;
    private final Communicator host;
    /** JCCL_CHECK_CALLS=1 with one process per GPU: this rank's fingerprint, then every rank's; else null. */
    private final MemorySegment overHost;
    /** Drops the collectives the enqueuer recorded in the current GPU group. */
    private final Runnable dropRecorded;
    /** The collectives compared over the host that passed (the number of the next is one more). */
    private long collectives;
    /** The collectives recorded in the current GPU group (over the host only): fingerprints and wheres, in order. */
    private long[] groupCalls = new long[4];
    private String[] groupWheres = new String[4];
    private int grouped;
    /** The group's fingerprints, then every rank's (while its exchange is under way). */
    private Arena groupArena;
    private MemorySegment groupAll;

    /**
     * {@code processes}: one process per GPU (else an initAll clique); {@code dropRecorded}: drops the collectives
     * the enqueuer recorded in this thread's GPU group (those {@link #defersInGroups()} makes it record).
     */
    public CallCheck(int rank, int nRanks, SharedControl control, boolean processes, Communicator host, Arena arena,
                     Runnable dropRecorded) {
        this.rank = rank;
        this.nRanks = nRanks;
        this.control = control;
        this.ledger = control.calls();
        this.link = control.link();
        this.host = host;
        this.overHost = processes && Params.CHECK_CALLS.get() == 1
                ? arena.allocate((long) Long.BYTES * (nRanks + 1), Long.BYTES) : null;
        this.dropRecorded = dropRecorded;
    }

    /** Whether collectives made inside a GPU group must be recorded, to launch after the group's comparison. */
    public boolean defersInGroups() {
        return overHost != null;
    }

    /** Checks this rank's next collective; {@code op} null for collectives without one. */
    public void collective(String where, Collective coll, long count, DataType type, RedOp op, int root) {
        collective(where, coll, count, type, op, root, false);
    }

    /**
     * As above; {@code window}: the call's buffers lie in a window of this rank (an unrooted call then counts as a
     * different call from the same one outside windows: every rank's buffers must lie in one, or none).
     */
    public void collective(String where, Collective coll, long count, DataType type, RedOp op, int root,
                           boolean window) {
        long fp = Fingerprint.of(coll, count, type, op == null ? null : op.kind(), root);
        if (window && !coll.rooted()) {
            fp = Fingerprint.variant(fp, Fingerprint.WINDOW);
        }
        if (overHost != null && GpuGroups.inGroup()) {
            record(where, fp);
        } else if (overHost != null) {
            compareOverHost(where, fp);
        } else if (ledger != null) {
            stopOn(ledger.record(rank, fp, where));
            if (link != null) {
                link.collective(fp);
            }
        }
    }

    /** Checks this rank's next send to {@code peer} (where the ranks share a ledger). */
    public void send(String where, int peer, long bytes) {
        if (ledger != null) {
            stopOn(ledger.recordSend(rank, peer, bytes, where));
            if (link != null) {
                link.send(peer, bytes);
            }
        }
    }

    /** Checks this rank's next receive from {@code peer} (where the ranks share a ledger). */
    public void recv(String where, int peer, long bytes) {
        if (ledger != null) {
            stopOn(ledger.recordRecv(rank, peer, bytes, where));
            if (link != null) {
                link.recv(peer, bytes);
            }
        }
    }

    /** A call the ledger refused: stops every rank's kernels and throws. */
    private void stopOn(JcclException refused) {
        if (refused != null) {
            control.fail(refused);
            throw refused;
        }
    }

    /** Every rank's fingerprint of this call, by the host communicator's allGather; throws on a difference. */
    private void compareOverHost(String where, long fp) {
        refuseInHostGroup(where);
        collectives++;
        MemorySegment mine = overHost.asSlice(0, Long.BYTES);
        MemorySegment all = overHost.asSlice(Long.BYTES);
        mine.set(JAVA_LONG, 0, fp);
        host.allGather(mine, all, Long.BYTES, DataType.UINT8);
        for (int q = 0; q < nRanks; q++) {
            long theirs = all.getAtIndex(JAVA_LONG, q);
            if (theirs == fp) {
                continue;
            }
            long call = collectives--;   // refused on every rank: the numbers count the calls that ran
            if (theirs < 0) {
                throw new JcclException(Result.INVALID_USAGE, where + ": collective call " + call + " of this rank, "
                        + Fingerprint.describe(fp) + ", was made outside a GPU group, rank " + q + " ended a GPU group"
                        + " of " + (theirs & ~GROUP_TAG) + " collective call(s) at this point; every rank must make the"
                        + " same collective calls in the same order. No rank launched it (JCCL_CHECK_CALLS).");
            }
            throw CallLedger.mismatch(where, call, fp, q, theirs, " No rank launched it (JCCL_CHECK_CALLS).");
        }
    }

    private static void refuseInHostGroup(String where) {
        if (GroupState.inGroup()) {   // the allGather would be recorded, not run: the comparison would read old data
            throw new JcclException(Result.INVALID_USAGE, where + ": called inside a host group (Jccl.group() or "
                    + "Jccl.groupStart()); with JCCL_CHECK_CALLS=1 each GPU call is compared with the other ranks' "
                    + "over the host communicator, which a host group would put off until it ends. End the host group "
                    + "first (GPU calls group with GpuCommunicator.group())");
        }
    }

    /** A collective made inside a GPU group: compared when the group ends (its launch is recorded meanwhile). */
    private void record(String where, long fp) {
        refuseInHostGroup(where);
        if (grouped == groupCalls.length) {
            groupCalls = Arrays.copyOf(groupCalls, 2 * grouped);
            groupWheres = Arrays.copyOf(groupWheres, 2 * grouped);
        }
        groupCalls[grouped] = fp;
        groupWheres[grouped++] = where;
        GpuGroups.registerCheck(this);
    }

    @Override
    public void exchangeCounts() {
        overHost.set(JAVA_LONG, 0, GROUP_TAG | grouped);
        host.allGather(overHost.asSlice(0, Long.BYTES), overHost.asSlice(Long.BYTES), Long.BYTES, DataType.UINT8);
    }

    @Override
    public void exchangeCalls() {
        if (differentCount(grouped) >= 0) {
            return;   // every rank sees it: none exchanges its calls
        }
        groupArena = Arena.ofShared();   // the host group runs the allGather on its workers
        MemorySegment mine = groupArena.allocate((long) Long.BYTES * grouped, Long.BYTES);
        MemorySegment.copy(groupCalls, 0, mine, JAVA_LONG, 0, grouped);
        groupAll = groupArena.allocate(mine.byteSize() * nRanks, Long.BYTES);
        host.allGather(mine, groupAll, mine.byteSize(), DataType.UINT8);
    }

    @Override
    public void settle(boolean exchanged) {
        int n = grouped;
        long first = collectives + 1;   // the number of the group's first call (counted once they pass)
        grouped = 0;
        try {
            if (!exchanged) {
                dropRecorded.run();
                return;
            }
            int q = differentCount(n);
            if (q >= 0) {
                dropRecorded.run();
                long theirs = overHost.getAtIndex(JAVA_LONG, 1 + q);
                throw new JcclException(Result.INVALID_USAGE, groupWheres[0] + ": this rank made " + n
                        + " collective call(s) in a GPU group (calls " + first + " on), rank " + q + " made "
                        + (theirs < 0 ? (theirs & ~GROUP_TAG) + " in its group" : Fingerprint.describe(theirs)
                        + " outside a group") + "; every rank must make the same collective calls in the same order."
                        + " No rank launched any collective of the group (JCCL_CHECK_CALLS).");
            }
            for (int i = 0; i < n; i++) {
                for (q = 0; q < nRanks; q++) {
                    long theirs = groupAll.getAtIndex(JAVA_LONG, (long) q * n + i);
                    if (theirs != groupCalls[i]) {
                        dropRecorded.run();
                        throw CallLedger.mismatch(groupWheres[i], first + i, groupCalls[i], q, theirs,
                                " No rank launched any collective of the GPU group (JCCL_CHECK_CALLS).");
                    }
                }
            }
            collectives += n;
        } finally {
            Arrays.fill(groupWheres, 0, n, null);
            if (groupArena != null) {
                groupArena.close();
                groupArena = null;
                groupAll = null;
            }
        }
    }

    /** A rank whose group held another number of collectives than this one's {@code n} (after the exchange), or -1. */
    private int differentCount(int n) {
        for (int q = 0; q < nRanks; q++) {
            if (overHost.getAtIndex(JAVA_LONG, 1 + q) != (GROUP_TAG | n)) {
                return q;
            }
        }
        return -1;
    }

    /** Forgets this rank's grouped calls (the communicator is closing). */
    public void discard() {
        grouped = 0;
        GpuGroups.forgetCheck(this);
    }
}
