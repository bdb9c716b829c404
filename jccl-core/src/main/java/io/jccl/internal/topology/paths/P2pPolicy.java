package io.jccl.internal.topology.paths;

import io.jccl.internal.topology.CpuArch;
import io.jccl.internal.topology.CpuVendor;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.TopoPath;
import io.jccl.internal.topology.TopoSystem;

/**
 * Whether two GPUs may talk peer-to-peer and whether a GPU may use GPU Direct RDMA with a NIC, from the path between
 * them and the NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL settings.
 *
 * <ul>
 *   <li>P2P: allowed when the GPU→GPU path type is at most the P2P level: NCCL_P2P_LEVEL if set (NCCL_P2P_DISABLE=1
 *   means LOC), else PXB, or SYS for at most two GPUs on an AMD x86 CPU. (NCCL also asks NVML whether P2P works; the
 *   CUDA module can refine this later.)</li>
 *   <li>GDR: both the NIC and the GPU must support it, and the GPU→NIC path type (for PXN, that of the relay GPU) must
 *   be at most NCCL_NET_GDR_LEVEL, default PXB.</li>
 * </ul>
 *
 * <p>Stateless; mirrors ncclTopoCheckP2p and ncclTopoCheckGdr (src/graph/paths.cc).
 */
final class P2pPolicy {
    private P2pPolicy() {
    }

    /** The P2P level in force for this system. */
    public static PathType p2pLevel(TopoSystem system, TopoParams params) {
        if (params.p2pLevel() != null) {
            return params.p2pLevel();
        }
        TopoNode cpu = system.firstCpu();
        if (cpu != null && cpu.cpuArch() == CpuArch.X86 && cpu.cpuVendor() == CpuVendor.AMD
                && system.count(NodeType.GPU) <= 2) {
            return PathType.SYS;
        }
        return PathType.PXB;
    }

    /** True when GPU index g1 may send to GPU index g2 directly (P2P). A GPU may always talk to itself. */
    public static boolean p2pAllowed(TopoSystem system, int g1, int g2, TopoParams params) {
        if (g1 == g2) {
            return true;
        }
        TopoPath path = system.node(NodeType.GPU, g1).pathTo(NodeType.GPU, g2);
        return path.type().atMost(p2pLevel(system, params));
    }

    /** The GPU that relays an NVB path g1→g2 (the first GPU on it), or -1 when the path is not NVB. */
    public static int intermediateGpu(TopoSystem system, int g1, int g2) {
        TopoPath path = system.node(NodeType.GPU, g1).pathTo(NodeType.GPU, g2);
        if (path.type() != PathType.NVB) {
            return -1;
        }
        TopoNode mid = relay(path);
        return mid == null ? -1 : system.indexOf(mid);
    }

    /** The first GPU a path passes through, skipping NVSwitches; null when the first non-NVSwitch hop is no GPU. */
    static TopoNode relay(TopoPath path) {
        for (var link : path.links()) {
            TopoNode n = link.remNode();
            if (n.type() != NodeType.NVS) {
                return n.type() == NodeType.GPU ? n : null;
            }
        }
        return null;
    }

    /** The GDR distance limit in force. */
    public static PathType gdrLevel(TopoParams params) {
        return params.gdrLevel() != null ? params.gdrLevel() : PathType.PXB;
    }

    /** True when GPU index g may use GPU Direct RDMA with NET index n (writes; reads are decided by the transport). */
    public static boolean gdrAllowed(TopoSystem system, int g, int n, TopoParams params) {
        TopoNode net = system.node(NodeType.NET, n);
        TopoNode gpu = system.node(NodeType.GPU, g);
        if (!net.netGdr() || !gpu.gpuGdr()) {
            return false;
        }
        TopoPath path = gpu.pathTo(NodeType.NET, n);
        PathType distance = path.type();
        if (distance == PathType.PXN && path.hops() > 0) {
            // Through a relay GPU: what counts is the relay GPU's own distance to the NIC.
            TopoNode relay = relay(path);
            if (relay != null) {
                distance = relay.pathTo(NodeType.NET, n).type();
            }
        }
        return distance.atMost(gdrLevel(params));
    }
}
