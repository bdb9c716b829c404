package io.jccl;

/** The operations a communicator runs, numbered as NCCL's {@code ncclFunc_t}. */
public enum Collective {
    /** Every rank receives the root's buffer. */
    BROADCAST(0, "Broadcast"),
    /** The root receives the reduction of every rank's buffer. */
    REDUCE(1, "Reduce"),
    /** Every rank receives every rank's block, in rank order. */
    ALL_GATHER(2, "AllGather"),
    /** Rank r receives the reduction of every rank's block r. */
    REDUCE_SCATTER(3, "ReduceScatter"),
    /** Every rank receives the reduction of every rank's buffer. */
    ALL_REDUCE(4, "AllReduce"),
    /** A group of sends and receives (how NCCL names point-to-point work). */
    SEND_RECV(5, "SendRecv"),
    /** Sends a buffer to one peer. */
    SEND(6, "Send"),
    /** Receives a buffer from one peer. */
    RECV(7, "Recv"),
    /** Block p of every rank's buffer goes to rank p. */
    ALL_TO_ALL(8, "AllToAll"),
    /** Rank r receives block r of the root's buffer. */
    SCATTER(9, "Scatter"),
    /** The root receives every rank's block, in rank order. */
    GATHER(10, "Gather"),
    /** Returns when every rank has called it (JCCL's own; NCCL has none). */
    BARRIER(15, "Barrier");

    private final int ncclId;
    private final String ncclName;

    Collective(int ncclId, String ncclName) {
        this.ncclId = ncclId;
        this.ncclName = ncclName;
    }

    /**
     * The value of NCCL's {@code ncclFunc_t} for this operation (Barrier is JCCL's own).
     *
     * @return the value
     */
    public int ncclId() {
        return ncclId;
    }

    /**
     * The name NCCL prints in its logs ({@code AllReduce}, ...).
     *
     * @return the name
     */
    public String ncclName() {
        return ncclName;
    }

    /**
     * True for operations that reduce data and therefore take a {@link RedOp}.
     *
     * @return whether it reduces
     */
    public boolean reduces() {
        return this == REDUCE || this == REDUCE_SCATTER || this == ALL_REDUCE;
    }

    /**
     * True for operations that take a root rank.
     *
     * @return whether it has a root
     */
    public boolean rooted() {
        return this == BROADCAST || this == REDUCE || this == GATHER || this == SCATTER;
    }
}
