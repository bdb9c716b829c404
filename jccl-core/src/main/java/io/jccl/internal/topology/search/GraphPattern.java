package io.jccl.internal.topology.search;

import io.jccl.JcclException;
import io.jccl.Result;

/**
 * Shapes the graph search looks for, with NCCL's ids ({@code NCCL_TOPO_PATTERN_*}).
 * <ul>
 *   <li>BALANCED_TREE: NIC traffic split over two GPUs: the parent and one child on the first, the other child on the
 *   second.</li>
 *   <li>SPLIT_TREE: the parent on the first GPU, the children on the second.</li>
 *   <li>TREE: all NIC traffic on one GPU.</li>
 *   <li>RING: NET → GPU a → … → GPU x → NET (or GPU a → … → x → a within a node).</li>
 *   <li>NVLS, COLLNET_DIRECT: NVSwitch multicast and SHARP patterns; JCCL does not search them.</li>
 * </ul>
 *
 * <p>Immutable; mirrors NCCL's pattern defines (src/graph/topo.h).
 */
public enum GraphPattern {
    BALANCED_TREE(1),
    SPLIT_TREE(2),
    TREE(3),
    RING(4),
    NVLS(5),
    COLLNET_DIRECT(6);

    private final int ncclId;

    GraphPattern(int ncclId) {
        this.ncclId = ncclId;
    }

    public int ncclId() {
        return ncclId;
    }

    public boolean isTree() {
        return this == BALANCED_TREE || this == SPLIT_TREE || this == TREE;
    }

    public static GraphPattern fromId(int id) {
        for (GraphPattern p : values()) {
            if (p.ncclId == id) {
                return p;
            }
        }
        throw new JcclException(Result.INVALID_ARGUMENT, "graph pattern " + id + " is unknown (1..6)");
    }
}
