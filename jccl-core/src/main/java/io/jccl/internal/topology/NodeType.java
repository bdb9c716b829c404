package io.jccl.internal.topology;

/**
 * Kinds of vertices in the topology graph, in NCCL's index order ({@code GPU=0 … NET=5}). NCCL also has GIN, RMA,
 * DEV and CXB types; JCCL models none of them (no GPU-initiated networking, no C2C cross-bridges), so they are absent.
 * CPU stands for a NUMA domain, as in NCCL.
 *
 * <p>Immutable; mirrors the node-type enumeration of NCCL's src/graph/topo.h.
 */
public enum NodeType {
    GPU("GPU"),
    PCI("PCI"),
    NVS("NVS"),
    CPU("CPU"),
    NIC("NIC"),
    NET("NET");

    /** Number of node types, the size of per-type arrays. */
    public static final int COUNT = values().length;

    private final String ncclName;

    NodeType(String ncclName) {
        this.ncclName = ncclName;
    }

    /** The string NCCL prints for this type ({@code GPU/0-60}). */
    public String ncclName() {
        return ncclName;
    }
}
