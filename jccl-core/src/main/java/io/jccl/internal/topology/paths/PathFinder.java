package io.jccl.internal.topology.paths;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.LinkType;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoConstants;
import io.jccl.internal.topology.TopoLink;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.TopoPath;
import io.jccl.internal.topology.TopoSystem;

import java.util.ArrayList;
import java.util.List;

/**
 * Computes the path from every node to every CPU, GPU, NET and NVSwitch with a breadth-first search from each of
 * those base nodes, then applies NCCL's policy rewrites: GPU pairs that may not use P2P go through their CPU, GPUs may
 * reach a NIC through an NVLink peer (PXN) or over C2C (P2C), and GPUs without GPU Direct RDMA go through their CPU.
 *
 * <p>BFS rules: a path's bandwidth is the minimum over its links; its type is the maximum over the hops, where a hop
 * between two PCI switches counts as PXB, a PCI hop into or out of a CPU as PHB, a NET link as LOC, and an NVLink hop
 * after an NVLink hop through a GPU as NVB. Routing through a GPU is only allowed as one NVLink hop between GPUs. A
 * node's path is replaced when it has no path yet or a longer one, and the new bandwidth is higher.
 *
 * <p>Runs on the initialising thread; mirrors ncclTopoComputePaths / ncclTopoSetPaths / addInterStep
 * (src/graph/paths.cc).
 */
public final class PathFinder {
    private PathFinder() {
    }

    /** Computes all paths of the system (replacing earlier ones) under the given settings. */
    public static void computePaths(TopoSystem system, TopoParams params) {
        system.clearPaths();
        for (NodeType t : new NodeType[] {NodeType.CPU, NodeType.GPU, NodeType.NET, NodeType.NVS}) {
            for (int i = 0; i < system.count(t); i++) {
                setPaths(system, t, i, params.nvbDisable());
            }
        }
        int nGpus = system.count(NodeType.GPU);
        for (int g = 0; g < nGpus; g++) {
            for (int p = 0; p < nGpus; p++) {
                if (p != g && !P2pPolicy.p2pAllowed(system, p, g, params)) {
                    // No P2P between p and g: route p→g through the CPU local to g.
                    int cpu = localCpu(system, g);
                    if (cpu >= 0) {
                        addInterStep(system, NodeType.CPU, cpu, NodeType.GPU, p, NodeType.GPU, g);
                    }
                }
            }
        }
        for (int n = 0; n < system.count(NodeType.NET); n++) {
            for (int g = 0; g < nGpus; g++) {
                TopoNode gpu = system.node(NodeType.GPU, g);
                if (!params.pxnDisable()) {
                    applyPxn(system, g, n);
                }
                if (params.c2cEnable()) {
                    applyP2c(system, g, n);
                }
                if (gpu.pathTo(NodeType.NET, n).type().betterThan(PathType.PHB)
                        && !P2pPolicy.gdrAllowed(system, g, n, params)) {
                    // No GPU Direct RDMA: stage through the CPU local to the GPU, both directions.
                    int cpu = localCpu(system, g);
                    if (cpu >= 0) {
                        addInterStep(system, NodeType.CPU, cpu, NodeType.NET, n, NodeType.GPU, g);
                        addInterStep(system, NodeType.CPU, cpu, NodeType.GPU, g, NodeType.NET, n);
                    }
                }
            }
        }
        for (int n = 0; n < system.count(NodeType.NET); n++) {
            system.node(NodeType.NET, n).setNetLocalGpu(localGpu(system, n));
        }
        system.markPathsComputed();
    }

    /** BFS from base node (type, index): every reached node gets its path to the base. */
    static void setPaths(TopoSystem system, NodeType baseType, int baseIndex, boolean nvbDisable) {
        TopoNode base = system.node(baseType, baseIndex);
        int nBase = system.count(baseType);
        base.setPath(baseType, baseIndex, nBase, new TopoPath(List.of(), TopoConstants.LOC_BW, PathType.LOC));
        List<TopoNode> frontier = List.of(base);
        while (!frontier.isEmpty()) {
            List<TopoNode> next = new ArrayList<>();
            for (TopoNode node : frontier) {
                TopoPath path = node.pathTo(baseType, baseIndex);
                for (TopoLink link : node.links()) {
                    TopoNode rem = link.remNode();
                    rem.ensurePaths(baseType, nBase);
                    TopoPath remPath = rem.pathTo(baseType, baseIndex);
                    double bw = Math.min(path.bwGBps(), link.bwGBps());
                    // Routing through a GPU is only allowed as one NVLink hop from one GPU to another.
                    if (node != base && node.type() == NodeType.GPU
                            && (nvbDisable || link.type() != LinkType.NVL || rem.type() != NodeType.GPU
                            || path.hops() > 1)) {
                        continue;
                    }
                    boolean better = (remPath.bwGBps() == 0 || remPath.hops() > path.hops()) && remPath.bwGBps() < bw;
                    if (!better) {
                        continue;
                    }
                    TopoLink reverse = rem.linkTo(node, link.type());
                    if (reverse == null) {
                        throw new JcclException(Result.INTERNAL_ERROR, "no reverse link from " + rem.label() + " to "
                                + node.label() + " (" + link.type() + "): links must be added in both directions");
                    }
                    List<TopoLink> links = new ArrayList<>(path.hops() + 1);
                    links.add(reverse);
                    links.addAll(path.links());
                    PathType type = link.type() == LinkType.NET ? PathType.LOC : link.type().asPathType();
                    if (node.type() == NodeType.PCI && rem.type() == NodeType.PCI) {
                        type = PathType.PXB;
                    }
                    if (link.type() == LinkType.PCI && (node.type() == NodeType.CPU || rem.type() == NodeType.CPU)) {
                        type = PathType.PHB;
                    }
                    if (node.type() == NodeType.GPU && path.type() == PathType.NVL && type == PathType.NVL
                            && links.size() > 1) {
                        type = PathType.NVB;
                    }
                    rem.setPath(baseType, baseIndex, nBase, new TopoPath(links, bw, PathType.worse(path.type(), type)));
                    if (!next.contains(rem)) {
                        next.add(rem);
                    }
                }
            }
            frontier = next;
        }
    }

    /**
     * Replaces the path from (t1,i1) to (t2,i2) by the path to (tx,ix) followed by the path from there on. The type is
     * the worse of the two, or PXN when the intermediate node is a GPU; the bandwidth the smaller.
     */
    static void addInterStep(TopoSystem system, NodeType tx, int ix, NodeType t1, int i1, NodeType t2, int i2) {
        TopoNode mid = system.node(tx, ix);
        TopoNode src = system.node(t1, i1);
        TopoPath first = src.pathTo(tx, ix);
        TopoPath second = mid.pathTo(t2, i2);
        List<TopoLink> links = new ArrayList<>(first.links());
        links.addAll(second.links());
        PathType type = tx == NodeType.GPU ? PathType.PXN : PathType.worse(first.type(), second.type());
        double bw = Math.min(first.bwGBps(), second.bwGBps());
        src.setPath(t2, i2, system.count(t2), new TopoPath(links, bw, type));
    }

    /**
     * PXN: GPU g may reach NET n through the GPU closest to n when that GPU is on n's PCI switch, is NVLink-connected
     * to
     * g, and either has more bandwidth to n or spares g a trip through a CPU. Only the GPU→NIC direction is rerouted
     * (receive locally, send remotely).
     */
    private static void applyPxn(TopoSystem system, int g, int n) {
        int peer = localGpu(system, n);
        if (peer < 0 || peer == g) {
            return;
        }
        TopoNode peerGpu = system.node(NodeType.GPU, peer);
        TopoNode gpu = system.node(NodeType.GPU, g);
        TopoPath peerToNet = peerGpu.pathTo(NodeType.NET, n);
        TopoPath gpuToNet = gpu.pathTo(NodeType.NET, n);
        if (peerToNet.type().atMost(PathType.PXB) && peerGpu.pathTo(NodeType.GPU, g).type().atMost(PathType.NVL)
                && (peerToNet.bwGBps() > gpuToNet.bwGBps() || gpuToNet.type().ordinal() > PathType.PXB.ordinal())) {
            addInterStep(system, NodeType.GPU, peer, NodeType.GPU, g, NodeType.NET, n);
        }
    }

    /**
     * P2C: a GPU with a C2C link to its CPU reaches a NIC under that CPU as GPU → C2C → CPU → PCIe → NIC, typed P2C
     * instead of PHB. (The notes name the path type; applying it when the GPU's own path is PHB or worse is JCCL's
     * reading of it.)
     */
    private static void applyP2c(TopoSystem system, int g, int n) {
        TopoNode gpu = system.node(NodeType.GPU, g);
        TopoPath toNet = gpu.pathTo(NodeType.NET, n);
        if (toNet.type().betterThan(PathType.PHB)) {
            return;
        }
        for (int c = 0; c < system.count(NodeType.CPU); c++) {
            TopoPath toCpu = gpu.pathTo(NodeType.CPU, c);
            TopoPath cpuToNet = system.node(NodeType.CPU, c).pathTo(NodeType.NET, n);
            if (toCpu.type() == PathType.C2C && cpuToNet.type().atMost(PathType.PHB)) {
                List<TopoLink> links = new ArrayList<>(toCpu.links());
                links.addAll(cpuToNet.links());
                gpu.setPath(NodeType.NET, n, system.count(NodeType.NET),
                        new TopoPath(links, Math.min(toCpu.bwGBps(), cpuToNet.bwGBps()), PathType.P2C));
                return;
            }
        }
    }

    /** The CPU with the fewest hops from GPU g (first on ties), or -1 without CPUs. */
    public static int localCpu(TopoSystem system, int g) {
        TopoNode gpu = system.node(NodeType.GPU, g);
        int best = -1;
        int minHops = 0;
        for (int c = 0; c < system.count(NodeType.CPU); c++) {
            TopoPath p = gpu.pathTo(NodeType.CPU, c);
            if (p.type() == PathType.DIS) {
                continue;
            }
            if (best < 0 || p.hops() < minHops) {
                best = c;
                minHops = p.hops();
            }
        }
        return best;
    }

    /** The GPU that NET n serves (see {@link Locality#localGpu}); -1 when none. */
    public static int localGpu(TopoSystem system, int n) {
        return Locality.localGpu(system, n);
    }
}
