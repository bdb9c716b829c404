package io.jccl.internal.topology;

/**
 * The NCCL_* settings that steer path computation and graph search, read once per communicator.
 *
 * @param p2pLevel     NCCL_P2P_LEVEL (or NCCL_P2P_DISABLE=1 → LOC): farthest path type over which GPUs use P2P;
 *                     null = NCCL's default (PXB; SYS for two GPUs on an AMD CPU)
 * @param gdrLevel     NCCL_NET_GDR_LEVEL: farthest GPU→NIC path type for GPU Direct RDMA; null = PXB
 * @param pxnDisable   NCCL_PXN_DISABLE=1: never route GPU→NIC traffic through an NVLink peer GPU
 * @param nvbDisable   NCCL_NVB_DISABLE=1: never route GPU→GPU traffic through an intermediate GPU
 * @param crossNic     NCCL_CROSS_NIC: 0 = a ring leaves through the NIC it entered by, 1 = any NIC, 2 (default) = try
 *                     same NIC, then alternate rails
 * @param c2cEnable    NCCL_C2C_ENABLE (default 1): use GPU↔CPU C2C links for GPU→NIC traffic (P2C paths)
 * @param graphFile    NCCL_GRAPH_FILE: load graphs from this file instead of searching; null = search
 * @param graphDumpFile NCCL_GRAPH_DUMP_FILE: write the searched graphs here; null = don't
 * @param topoFile     NCCL_TOPO_FILE: read the topology from this XML instead of discovering it
 * @param topoDumpFile NCCL_TOPO_DUMP_FILE: write the topology XML here
 *
 * <p>Immutable.
 */
public record TopoParams(PathType p2pLevel, PathType gdrLevel, boolean pxnDisable, boolean nvbDisable, int crossNic,
                         boolean c2cEnable, String graphFile, String graphDumpFile, String topoFile,
                         String topoDumpFile) {

    public static TopoParams defaults() {
        return new TopoParams(null, null, false, false, 2, true, null, null, null, null);
    }

    public static TopoParams from(TopoEnv env) {
        PathType p2p = null;
        if (env.longValue("NCCL_P2P_DISABLE", 0) == 1) {
            p2p = PathType.LOC;
        } else if (env.string("NCCL_P2P_LEVEL") != null) {
            p2p = PathType.parseLevel("NCCL_P2P_LEVEL", env.string("NCCL_P2P_LEVEL"));
        }
        PathType gdr = env.string("NCCL_NET_GDR_LEVEL") == null ? null
                : PathType.parseLevel("NCCL_NET_GDR_LEVEL", env.string("NCCL_NET_GDR_LEVEL"));
        int crossNic = env.intValue("NCCL_CROSS_NIC", 2);
        return new TopoParams(p2p, gdr, env.longValue("NCCL_PXN_DISABLE", 0) == 1,
                env.longValue("NCCL_NVB_DISABLE", 0) == 1, crossNic, env.longValue("NCCL_C2C_ENABLE", 1) != 0,
                env.string("NCCL_GRAPH_FILE"), env.string("NCCL_GRAPH_DUMP_FILE"), env.string("NCCL_TOPO_FILE"),
                env.string("NCCL_TOPO_DUMP_FILE"));
    }

    public TopoParams withP2pLevel(PathType level) {
        return new TopoParams(level, gdrLevel, pxnDisable, nvbDisable, crossNic, c2cEnable, graphFile, graphDumpFile,
                topoFile, topoDumpFile);
    }

    public TopoParams withCrossNic(int value) {
        return new TopoParams(p2pLevel, gdrLevel, pxnDisable, nvbDisable, value, c2cEnable, graphFile, graphDumpFile,
                topoFile, topoDumpFile);
    }

    public TopoParams withPxnDisable(boolean value) {
        return new TopoParams(p2pLevel, gdrLevel, value, nvbDisable, crossNic, c2cEnable, graphFile, graphDumpFile,
                topoFile, topoDumpFile);
    }
}
