package io.jccl.internal.topology.search;

import io.jccl.internal.topology.LinkType;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoLink;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoPath;
import io.jccl.internal.topology.TopoSystem;
import io.jccl.internal.topology.paths.Locality;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The order in which the search tries candidates: the next GPU after the current one (scored by bandwidth and hops
 * towards the NIC, then within the node; on NVSwitch systems only the index neighbours), the NICs a channel may use,
 * and the GPU the previous channel used at the same step ("replay").
 *
 * <p>Stateless; mirrors ncclTopoSearchNextGpuSort, ncclTopoSelectNets and ncclTopoReplayGetGpu (src/graph/search.cc).
 */
final class SearchOrder {
    private SearchOrder() {
    }

    private record Score(int g, int startIndex, int intraHops, double intraBw, int interHops, double interPciBw,
                         double interBw) {
    }

    private static final Comparator<Score> ORDER = Comparator
            .comparingDouble((Score s) -> -s.interBw)
            .thenComparingDouble(s -> -s.interPciBw)
            .thenComparingInt(s -> s.interHops)
            .thenComparingDouble(s -> -s.intraBw)
            .thenComparingInt(s -> s.intraHops)
            .thenComparingInt(s -> s.startIndex);

    /**
     * Candidate next GPUs after GPU index {@code g} for the current channel, best first.
     *
     * @param sortNet -1 inside a node (no NIC); 1 when the next GPU must go back to the NIC (score by NIC distance);
     *                0 otherwise
     */
    static int[] nextGpus(TopoSystem system, TopoGraph graph, int g, int sortNet) {
        long flag = 1L << graph.nChannels;
        int nGpus = system.count(NodeType.GPU);
        TopoNode gpu = system.node(NodeType.GPU, g);
        TopoNode net = null;
        if (sortNet == 1) {
            int n = system.netIndexOfId(graph.inter[graph.nChannels * 2]);
            net = n >= 0 ? system.node(NodeType.NET, n) : null;
        }
        List<Score> scores = new ArrayList<>();
        for (int i = 1; i < nGpus; i++) {
            int cand = (g + i) % nGpus;
            TopoPath p = gpu.pathTo(NodeType.GPU, cand);
            if (p.hops() == 0 || (system.node(NodeType.GPU, cand).usedMask() & flag) != 0) {
                continue;
            }
            int interHops = 0;
            double interBw = 0;
            double interPciBw = 0;
            if (net != null) {
                TopoPath np = net.pathTo(NodeType.GPU, cand);
                interHops = np.hops();
                interBw = np.bwGBps();
                interPciBw = gpuPciBw(system.node(NodeType.GPU, cand));
            }
            scores.add(new Score(cand, i, p.hops(), p.bwGBps(), interHops, interPciBw, interBw));
        }
        scores.sort(ORDER);
        int[] next = new int[scores.size()];
        boolean allSameIntra = scores.stream().allMatch(s -> s.intraBw == scores.get(0).intraBw
                && s.intraHops == scores.get(0).intraHops);
        for (int i = 0; i < next.length; i++) {
            // With nothing to tell them apart inside a node, go backwards (NCCL does, to spread rings).
            next[i] = sortNet == -1 && allSameIntra ? scores.get(next.length - 1 - i).g : scores.get(i).g;
        }
        if (system.count(NodeType.NVS) == 0) {
            return next;
        }
        // NVSwitches prefer few peers per GPU: only try the index neighbours.
        int prev = (g - 1 + nGpus) % nGpus;
        int after = (g + 1) % nGpus;
        int[] first = graph.pattern == GraphPattern.RING ? new int[] {after, prev}
                : graph.pattern == GraphPattern.SPLIT_TREE || graph.pattern == GraphPattern.BALANCED_TREE
                ? new int[] {prev, after} : new int[] {after};
        if (first.length == 2 && first[0] == first[1]) {
            first = new int[] {first[0]};
        }
        List<Integer> order = new ArrayList<>();
        for (int x : next) {
            order.add(x);
        }
        int real = 0;
        for (int f : first) {
            int at = order.indexOf(f);
            if (at >= 0) {
                order.remove(at);
                order.add(0, f);
                real++;
            }
        }
        int[] out = new int[real];
        for (int i = 0; i < real; i++) {
            out[i] = order.get(i);
        }
        return out;
    }

    /** The bandwidth of the GPU's own PCI link (min of both directions, as currently reserved); -1 without one. */
    static double gpuPciBw(TopoNode gpu) {
        for (TopoLink l : gpu.links()) {
            if (l.type() != LinkType.PCI) {
                continue;
            }
            TopoLink back = l.remNode().linkTo(gpu, LinkType.PCI);
            if (back != null) {
                return Math.min(l.bwGBps(), back.bwGBps());
            }
        }
        return -1;
    }

    /**
     * The NET indices a channel may use from GPU {@code g} (all GPUs when g is -1): first each GPU's preferred NICs
     * (what it picks per channel), then the other NICs in order of path type up to {@code typeInter}. No duplicates.
     */
    static int[] selectNets(TopoSystem system, PathType typeInter, int g) {
        List<Integer> nets = new ArrayList<>();
        int nGpus = system.count(NodeType.GPU);
        for (int gi = 0; gi < nGpus; gi++) {
            if (g != -1 && g != gi) {
                continue;
            }
            List<Integer> local = new ArrayList<>();
            for (int c = 0; c < io.jccl.internal.topology.TopoConstants.MAXCHANNELS; c++) {
                int n = Locality.localNet(system, gi, c);
                if (n < 0 || (!local.isEmpty() && n == local.get(0))) {
                    break;
                }
                local.add(n);
            }
            for (int n : local) {
                if (!nets.contains(n)) {
                    nets.add(n);
                }
            }
        }
        for (int t = 0; t <= typeInter.ordinal(); t++) {
            for (int gi = 0; gi < nGpus; gi++) {
                if (g != -1 && g != gi) {
                    continue;
                }
                TopoNode gpu = system.node(NodeType.GPU, gi);
                for (int n = 0; n < system.count(NodeType.NET); n++) {
                    if (gpu.pathTo(NodeType.NET, n).type().ordinal() == t && !nets.contains(n)) {
                        nets.add(n);
                    }
                }
            }
        }
        return nets.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The GPU index the previous channel used at step+1 (step -1: its first GPU). */
    static int replayGpu(TopoSystem system, TopoGraph graph, int step) {
        int rank = graph.intra[(graph.nChannels - 1) * graph.nGpus + step + 1];
        return system.gpuIndexOfRank(rank);
    }

    /** The path type from NET n to its closest GPUs (DIS when none). */
    static PathType netLocalType(TopoSystem system, int n) {
        return Locality.localPathType(system, NodeType.NET, n, NodeType.GPU);
    }
}
