package io.jccl.cuda.internal.comm;

import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.internal.algorithm.Fingerprint;
import io.jccl.internal.enqueue.GroupState;
import io.jccl.internal.param.Params;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One GPU rank's check of each call against its peers' before the call is launched: through the {@link CallLedger}
 * the ranks share ({@link SharedControl}: an {@code initAll} clique's, or the processes' shared-memory file;
 * collectives, and sends paired with receives; a refused call stops every rank's kernels). With one process per GPU
 * and {@code JCCL_CHECK_CALLS=1}, collectives are compared over the host communicator instead (each call waits for
 * every rank to reach it; a refused call is refused on every rank, none launches it, and the communicator stays
 * usable); that is also the only check where the processes could not share memory.
 *
 * <p>Thread: the rank's issuing thread. Mirrors nothing in NCCL (see {@link CallLedger}).
 */
public final class CallCheck {
    private final int rank;
    private final int nRanks;
    private final SharedControl control;
    private final CallLedger ledger;
    private final Communicator host;
    /** JCCL_CHECK_CALLS=1 with one process per GPU: this rank's fingerprint, then every rank's; else null. */
    private final MemorySegment overHost;
    private long collectives;

    /** {@code processes}: one process per GPU (else an initAll clique). */
    public CallCheck(int rank, int nRanks, SharedControl control, boolean processes, Communicator host, Arena arena) {
        this.rank = rank;
        this.nRanks = nRanks;
        this.control = control;
        this.ledger = control.calls();
        this.host = host;
        this.overHost = processes && Params.CHECK_CALLS.get() == 1
                ? arena.allocate((long) Long.BYTES * (nRanks + 1), Long.BYTES) : null;
    }

    /** Checks this rank's next collective; {@code op} null for collectives without one. */
    public void collective(String where, Collective coll, long count, DataType type, RedOp op, int root) {
        long fp = Fingerprint.of(coll, count, type, op == null ? null : op.kind(), root);
        if (overHost != null) {
            compareOverHost(where, fp);
        } else if (ledger != null) {
            stopOn(ledger.record(rank, fp, where));
        }
    }

    /** Checks this rank's next send to {@code peer} (where the ranks share a ledger). */
    public void send(String where, int peer, long bytes) {
        if (ledger != null) {
            stopOn(ledger.recordSend(rank, peer, bytes, where));
        }
    }

    /** Checks this rank's next receive from {@code peer} (where the ranks share a ledger). */
    public void recv(String where, int peer, long bytes) {
        if (ledger != null) {
            stopOn(ledger.recordRecv(rank, peer, bytes, where));
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
        if (GroupState.inGroup()) {   // the allGather would be recorded, not run: the comparison would read old data
            throw new JcclException(Result.INVALID_USAGE, where + ": called inside a host group (Jccl.group() or "
                    + "Jccl.groupStart()); with JCCL_CHECK_CALLS=1 each GPU call is compared with the other ranks' "
                    + "over the host communicator, which a host group would put off until it ends. End the host group "
                    + "first (GPU sends and receives group with GpuCommunicator.group())");
        }
        collectives++;
        MemorySegment mine = overHost.asSlice(0, Long.BYTES);
        MemorySegment all = overHost.asSlice(Long.BYTES);
        mine.set(JAVA_LONG, 0, fp);
        host.allGather(mine, all, Long.BYTES, DataType.UINT8);
        for (int q = 0; q < nRanks; q++) {
            long theirs = all.getAtIndex(JAVA_LONG, q);
            if (theirs != fp) {
                throw CallLedger.mismatch(where, collectives, fp, q, theirs, " No rank launched it (JCCL_CHECK_CALLS).");
            }
        }
    }
}
