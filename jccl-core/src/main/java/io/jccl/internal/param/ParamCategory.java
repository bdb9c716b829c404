package io.jccl.internal.param;

/**
 * Which part of JCCL reads a parameter, named after NCCL's debug subsystems where one fits; used to group the
 * {@code ./jccl params} table and the generated documentation. Owned by: any thread (constant).
 */
enum ParamCategory {
    /** Logging: NCCL_DEBUG and friends. */
    DEBUG("Logging"),
    /** Communicator creation, deadlines, channel counts, buffer sizes. */
    INIT("Communicator"),
    /** Launch environment and bootstrap rendezvous. */
    BOOTSTRAP("Launch and bootstrap"),
    /** Sockets and network interfaces. */
    NET("Network"),
    /** Shared memory between ranks of one host. */
    SHM("Shared memory"),
    /** Topology discovery, paths and graph search. */
    GRAPH("Topology"),
    /** Algorithm, protocol and channel selection. */
    TUNING("Tuning"),
    /** JFR events, JMX counters and profiler plugins. */
    PROFILE("Observability"),
    /** The CUDA module (jccl-cuda). */
    CUDA("CUDA"),
    /** The command line tools (jccl-tools, the jccl script). */
    TOOLS("Tools");

    private final String title;

    ParamCategory(String title) {
        this.title = title;
    }

    /** A heading for tables and docs. */
    public String title() {
        return title;
    }
}
