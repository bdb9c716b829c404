package io.jccl.internal.profile;

import jdk.jfr.Label;

/**
 * The fields that place every JCCL JFR event: the communicator and this rank in it. Abstract: JFR records only the
 * subclasses ({@link InitPhaseEvent}, and through {@link CallEvent} the call and launch events).
 *
 * <p>Owned by: the thread that fills the event in. Mirrors the communicator part of NCCL's profiler descriptors.
 */
public abstract class CommEvent extends jdk.jfr.Event {
    @Label("Communicator")
    public String commId;

    @Label("Rank")
    public int rank;

    @Label("Ranks")
    public int nRanks;

    /** Sets the communicator and rank fields. */
    public final void place(String commId, int rank, int nRanks) {
        this.commId = commId;
        this.rank = rank;
        this.nRanks = nRanks;
    }
}
