package io.jccl.internal.comm;

import io.jccl.JcclException;

import java.util.ArrayList;
import java.util.List;

/**
 * The communicators {@code initAll} (or {@code initRanks}) created in one process, released together. Closing one of
 * them tells its peers
 * at once (the first half of an orderly close) and returns; the last member to arrive finishes every member's close:
 * each then hears from all of its peers without waiting, and is released. So the communicators can be closed one
 * after another from a single thread, as nccl-tests destroys ncclCommInitAll's communicators; without this the first
 * close waited its whole timeout for a peer that the same thread had yet to close. A member that is aborted, or closed
 * inside a group (which finishes the close itself), arrives with nothing left to finish.
 *
 * <p>Owned by: whichever application thread closes or aborts a member; every method is synchronized. Mirrors:
 * ncclCommDestroy of single-process communicators, which does not wait for the other ranks.
 */
final class LocalCloseGroup {
    private final boolean[] arrived;
    private final int members;
    private final List<Runnable> pending = new ArrayList<>();
    private int count;

    /** @param nRanks the members, ranks 0 to nRanks - 1 */
    LocalCloseGroup(int nRanks) {
        this(nRanks, nRanks);
    }

    /**
     * @param nRanks  the communicator's size
     * @param members how many of its ranks are members: those of this process (the others close in theirs)
     */
    LocalCloseGroup(int nRanks, int members) {
        this.arrived = new boolean[nRanks];
        this.members = members;
    }

    /**
     * Records that {@code rank} is closing (or gone); when it is the last member to arrive, runs every pending
     * {@code finish} on this thread, then rethrows the first failure.
     *
     * @param finish the rest of this member's close, or null when nothing is left to do
     */
    void arrive(int rank, Runnable finish) {
        List<Runnable> run;
        synchronized (this) {
            if (arrived[rank]) {
                return;
            }
            arrived[rank] = true;
            count++;
            if (finish != null) {
                pending.add(finish);
            }
            if (count < members) {
                return;
            }
            run = List.copyOf(pending);
            pending.clear();
        }
        JcclException first = null;
        for (Runnable r : run) {
            try {
                r.run();
            } catch (JcclException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** @return true when every member has arrived (for tests) */
    synchronized boolean complete() {
        return count == members;
    }
}
