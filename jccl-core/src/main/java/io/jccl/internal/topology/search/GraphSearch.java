package io.jccl.internal.topology.search;

import io.jccl.internal.topology.LinkType;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoConstants;
import io.jccl.internal.topology.TopoLink;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.TopoSystem;

/**
 * Finds the channels of one pattern on one node under a step budget, as NCCL's ncclTopoCompute does.
 *
 * <p>Pass 1 starts at the highest speed of the speed array that the system can carry and relaxes constraints one at a
 * time until a solution exists: first allow different GPU orders per channel (sameChannels off), then for balanced
 * trees on Hopper+ a plain tree, then worse intra-node path types, then worse GPU↔NIC path types, then crossing NICs,
 * then lower speeds (while the next speed is more than 0.49 of the best found). Pass 2 starts from the pass-1 answer:
 * channels are duplicated at half speed when fast enough (≥ 25 GB/s), then rings retry higher speeds and trees a
 * higher intra-node speed with at least as many channels. Each search spends at most its budget of recursion steps
 * (16384, or 256 when all channels must look alike) out of a global budget of 524288; the best graph so far is kept
 * when time runs out. Without any solution, one channel in PCI order at 0.1 GB/s over SYS is returned.
 *
 * <p>Runs on the initialising thread; mirrors ncclTopoSearchInit, ncclTopoCompute and ncclTopoDupChannels.
 */
public final class GraphSearch {
    public static final int GLOBAL_TIMEOUT = 1 << 19;
    public static final int TIMEOUT = 1 << 14;
    public static final int TIMEOUT_TREE = 1 << 14;
    public static final int TIMEOUT_SAMECHANNELS = 1 << 8;

    private GraphSearch() {
    }

    /** Computes maxBw (best single path from a GPU to a GPU or NIC) and totalBw (best GPU aggregate) of the system. */
    public static void init(TopoSystem system) {
        boolean inter = system.count(NodeType.NET) > 0;
        if (!inter && system.count(NodeType.GPU) == 1) {
            system.setSearchBandwidths(TopoConstants.LOC_BW, TopoConstants.LOC_BW);
            return;
        }
        double maxBw = 0;
        double totalBw = 0;
        NodeType target = inter ? NodeType.NET : NodeType.GPU;
        for (TopoNode gpu : system.nodes(NodeType.GPU)) {
            for (int i = 0; i < system.count(target); i++) {
                if (target == NodeType.GPU && system.node(target, i) == gpu) {
                    continue;
                }
                maxBw = Math.max(maxBw, gpu.pathTo(target, i).bwGBps());
            }
            double nvl = 0;
            double pci = 0;
            for (TopoLink l : gpu.links()) {
                if (l.type() == LinkType.NVL) {
                    nvl += l.bwGBps();
                } else if (l.type() == LinkType.PCI) {
                    pci += l.bwGBps();
                }
            }
            totalBw = Math.max(totalBw, Math.max(nvl, pci));
        }
        system.setSearchBandwidths(maxBw, totalBw);
    }

    /**
     * Searches a graph of the given pattern on a system whose paths are computed.
     *
     * @param id          {@link TopoGraph#ID_RING} or {@link TopoGraph#ID_TREE}
     * @param minChannels fewest channels a result may have
     * @param maxChannels most channels to look for
     */
    public static TopoGraph compute(TopoSystem system, TopoParams params, int id, GraphPattern pattern, int minChannels,
                                    int maxChannels) {
        init(system);
        int nGpus = system.count(NodeType.GPU);
        int nNets = system.count(NodeType.NET);
        boolean inter = nNets > 0;
        int ccMin = system.compCapRange()[0];
        GraphPattern pat = pattern;
        if (nGpus == 1 && pat != GraphPattern.RING) {
            pat = GraphPattern.TREE;
        }
        if (ccMin < 80 && pat == GraphPattern.BALANCED_TREE) {
            pat = GraphPattern.SPLIT_TREE; // works better on older GPUs
        }
        TopoGraph graph = new TopoGraph(id, pat, nGpus, minChannels, maxChannels);
        int crossNic = nNets > 1 && (pat == GraphPattern.RING || pat == GraphPattern.BALANCED_TREE
                || pat == GraphPattern.SPLIT_TREE) ? params.crossNic() : 0;
        graph.crossNic = crossNic == 1 ? 1 : 0;
        graph.typeIntra = nGpus == 1 ? PathType.LOC : PathType.NVL;
        graph.typeInter = PathType.PIX;
        graph.sameChannels = true;
        if (nGpus == 0) {
            return graph; // nothing to search (host-only node)
        }
        TopoGraph tmp = graph.copy();
        double[] speeds = SpeedArrays.forSearch(inter, ccMin);
        double maxBw = system.maxBwGBps();
        double totalBw = system.totalBwGBps();
        if (nGpus > 1 && pat != GraphPattern.RING) {
            totalBw *= nGpus * 1.0 / (nGpus - 1);
        }
        int speedIndex = 0;
        while ((speeds[speedIndex] > maxBw || speeds[speedIndex] * graph.minChannels > totalBw)
                && speedIndex < speeds.length - 1) {
            speedIndex++;
        }
        tmp.bwIntra = tmp.bwInter = speeds[speedIndex];
        long globalTimeout = GLOBAL_TIMEOUT;
        SearchRecursion rec = new SearchRecursion(system, graph);
        int pass = 1;
        while (true) {
            // ---- one search
            SearchRecursion.Budget time = new SearchRecursion.Budget(tmp.sameChannels ? TIMEOUT_SAMECHANNELS
                    : tmp.pattern == GraphPattern.TREE ? TIMEOUT_TREE : TIMEOUT);
            tmp.nChannels = 0;
            globalTimeout -= time.left;
            rec.searchRec(tmp, time);
            boolean done = time.left == -1 || graph.nChannels * graph.bwInter >= system.totalBwGBps();
            if (!done && pass == 1) {
                if (tmp.sameChannels) {
                    tmp.sameChannels = false;
                    continue;
                }
                tmp.sameChannels = true;
                globalTimeout += time.left;
                if (globalTimeout < 0 && graph.nChannels > 0) {
                    done = true;
                } else if (ccMin >= 90 && tmp.pattern == GraphPattern.BALANCED_TREE) {
                    tmp.pattern = GraphPattern.TREE; // try a simpler tree
                    continue;
                } else {
                    tmp.pattern = graph.pattern;
                    PathType maxTypeIntra = inter ? tmp.typeInter : PathType.SYS;
                    if (tmp.typeIntra.betterThan(maxTypeIntra)
                            && (graph.nChannels == 0 || tmp.typeIntra.betterThan(graph.typeIntra))) {
                        tmp.typeIntra = tmp.typeIntra.next();
                        continue;
                    }
                    tmp.typeIntra = nGpus == 1 ? PathType.LOC : PathType.NVL;
                    if (inter && tmp.typeInter.betterThan(PathType.SYS) && (graph.nChannels == 0
                            || tmp.typeInter.betterThan(graph.typeInter) || tmp.typeInter.betterThan(PathType.PXN))) {
                        tmp.typeInter = tmp.typeInter.next();
                        continue;
                    }
                    tmp.typeInter = PathType.PIX;
                    if (crossNic == 2 && tmp.crossNic == 0
                            && (graph.pattern == GraphPattern.RING || graph.pattern == GraphPattern.BALANCED_TREE)) {
                        tmp.crossNic = 2;
                        continue;
                    }
                    tmp.crossNic = crossNic == 1 ? 1 : 0;
                    if (speedIndex < speeds.length - 1
                            && (graph.nChannels == 0 || speeds[speedIndex + 1] / graph.bwInter > .49)) {
                        tmp.bwInter = tmp.bwIntra = speeds[++speedIndex];
                        continue;
                    }
                    done = true;
                }
            }
            // ---- done with this phase
            if (pass == 1) {
                time.left = -1;
                dupChannels(graph, ccMin, nGpus);
                tmp.copyFrom(graph);
                speedIndex = 0;
                while (speeds[speedIndex] > graph.bwInter && speedIndex < speeds.length - 1) {
                    speedIndex++;
                }
                tmp.bwIntra = tmp.bwInter = speeds[speedIndex];
                tmp.minChannels = graph.nChannels;
                pass = 2;
            }
            if (time.left != 0 && speedIndex > 0) {
                if (graph.pattern == GraphPattern.RING) {
                    tmp.bwIntra = tmp.bwInter = speeds[--speedIndex]; // can rings go faster?
                    continue;
                } else if (tmp.bwIntra == graph.bwIntra && tmp.bwIntra < tmp.bwInter * 2) {
                    tmp.bwIntra = speeds[--speedIndex]; // trees across 2 nodes: faster inside the node?
                    continue;
                }
            }
            break;
        }
        if (graph.nChannels == 0) {
            fallback(system, graph);
        }
        graph.searchSteps = rec.steps();
        return graph;
    }

    /** Doubles the channels at half the bandwidth when each channel is fast enough to be split. */
    static void dupChannels(TopoGraph graph, int ccMin, int nGpus) {
        if (graph.bwIntra < 25.0) {
            return;
        }
        if (ccMin > 80 && graph.bwIntra < 50.0 && graph.nChannels > 4) {
            return;
        }
        int dup = Math.min(graph.nChannels * 2, graph.maxChannels);
        if (dup <= graph.nChannels) {
            return;
        }
        System.arraycopy(graph.intra, 0, graph.intra, graph.nChannels * nGpus, (dup - graph.nChannels) * nGpus);
        System.arraycopy(graph.inter, 0, graph.inter, graph.nChannels * 2, (dup - graph.nChannels) * 2);
        int factor = (dup + graph.nChannels - 1) / graph.nChannels;
        graph.bwIntra /= factor;
        graph.bwInter /= factor;
        graph.nChannels = dup;
    }

    /** No solution: one channel in GPU index order at a token bandwidth over SYS. */
    private static void fallback(TopoSystem system, TopoGraph graph) {
        for (int i = 0; i < system.count(NodeType.GPU); i++) {
            graph.intra[i] = system.node(NodeType.GPU, i).gpuRank();
        }
        long netId = system.count(NodeType.NET) > 0 ? system.node(NodeType.NET, 0).id() : 0;
        graph.inter[0] = graph.inter[1] = netId;
        graph.bwIntra = graph.bwInter = 0.1;
        graph.typeIntra = graph.typeInter = PathType.SYS;
        graph.nChannels = 1;
    }
}
