package io.jccl;

/** The operations a communicator runs, numbered as NCCL's {@code ncclFunc_t}. */
public enum Collective {
    BROADCAST(0, "Broadcast"),
    REDUCE(1, "Reduce"),
    ALL_GATHER(2, "AllGather"),
    REDUCE_SCATTER(3, "ReduceScatter"),
    ALL_REDUCE(4, "AllReduce"),
    SEND_RECV(5, "SendRecv"),
    SEND(6, "Send"),
    RECV(7, "Recv"),
    ALL_TO_ALL(8, "AllToAll"),
    SCATTER(9, "Scatter"),
    GATHER(10, "Gather"),
    BARRIER(15, "Barrier");

    private final int ncclId;
    private final String ncclName;

    Collective(int ncclId, String ncclName) {
        this.ncclId = ncclId;
        this.ncclName = ncclName;
    }

    /** The value of NCCL's {@code ncclFunc_t} for this operation (Barrier is JCCL's own). */
    public int ncclId() {
        return ncclId;
    }

    /** The name NCCL prints in its logs ({@code AllReduce}, ...). */
    public String ncclName() {
        return ncclName;
    }

    /** True for operations that reduce data and therefore take a {@link RedOp}. */
    public boolean reduces() {
        return this == REDUCE || this == REDUCE_SCATTER || this == ALL_REDUCE;
    }

    /** True for operations that take a root rank. */
    public boolean rooted() {
        return this == BROADCAST || this == REDUCE || this == GATHER || this == SCATTER;
    }
}
