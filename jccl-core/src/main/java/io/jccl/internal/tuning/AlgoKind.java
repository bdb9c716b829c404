package io.jccl.internal.tuning;

/**
 * The algorithms the host executor runs, as logs, JFR events, profilers and JMX counters name them (NCCL's
 * {@code NCCL_ALGO_*} names where one applies). Owned by: any thread (constant).
 */
public enum AlgoKind {
    /** Nothing runs: a call with zero elements. */
    NONE,
    /** Ring over the channels (NCCL's RING). */
    RING,
    /** Every rank reads every peer's input from shared memory and reduces locally (small messages, one host). */
    ONE_SHOT,
    /** Each rank reduces its slice from its peers' copies in shared memory, then gathers theirs (medium, one host). */
    TWO_SHOT,
    /** Single-copy allReduce over buffers from {@code Communicator.allocate}. */
    REGISTERED,
    /** Double binary tree across hosts, a chain inside each (NCCL's TREE; allReduce only). */
    TREE,
    /** Point-to-point sends and receives (send/recv, and allToAll, gather, scatter lowered to them). */
    P2P,
    /** Reproducible mode without a shared area: every input gathered, then each element reduced in rank order. */
    RANK_ORDER
}
