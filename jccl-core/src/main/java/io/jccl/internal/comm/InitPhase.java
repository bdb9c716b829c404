package io.jccl.internal.comm;

/**
 * The phases of communicator creation, in order, as JFR events, profiler plugins and the JMX bean name them.
 * Owned by: any thread (constant). Mirrors: the stages of NCCL's ncclCommInitRankFunc / initTransportsRank.
 */
public enum InitPhase {
    /** Connecting to the root and forming the bootstrap ring. */
    BOOTSTRAP,
    /** All-gathering peer information; agreeing on hosts, channels and slot sizes. */
    PEER_INFO,
    /** Starting the proxy thread and the shared-memory and network transports. */
    TRANSPORTS,
    /** Connecting every channel's ring to its previous and next rank. */
    CONNECT,
    /** Creating the shared area of the one-shot and registered algorithms. */
    SHARED_MEMORY,
    /** Starting the channel workers and the planner. */
    RUNTIME
}
