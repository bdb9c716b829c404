package io.jccl.internal.topology.search;

import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoSystem;

/**
 * The depth-first part of the search: builds one channel at a time (NET → GPU → … → GPU → NET across nodes, or a GPU
 * ring / chain inside a node), reserving bandwidth along each hop and giving it back when backtracking. Every complete
 * set of channels is compared with the best so far ({@link #compare}); the recursion stops when the step budget runs
 * out or when the maximum channel count is reached (budget set to -1 = optimal).
 *
 * <p>Owned by the initialising thread for one search; mirrors ncclTopoSearchRec, ncclTopoSearchRecNet,
 * ncclTopoSearchTryGpu, ncclTopoSearchRecGpu and ncclTopoCompareGraphs (src/graph/search.cc).
 */
final class SearchRecursion {
    static final int FORCED_ORDER_PCI = 1;
    static final int FORCED_ORDER_REPLAY = 2;

    /** Remaining recursion steps; -1 means an optimal graph was found. */
    static final class Budget {
        int left;

        Budget(int left) {
            this.left = left;
        }
    }

    private final TopoSystem system;
    private final TopoGraph best;
    private final int nGpus;
    private final int nNets;
    /** Recursion steps taken so far, over all searches with this object. */
    private long steps;

    SearchRecursion(TopoSystem system, TopoGraph best) {
        this.system = system;
        this.best = best;
        this.nGpus = system.count(NodeType.GPU);
        this.nNets = system.count(NodeType.NET);
    }

    long steps() {
        return steps;
    }

    /** Searches more channels on top of the ones already in {@code graph}. */
    void searchRec(TopoGraph graph, Budget time) {
        int backToNet;
        int backToFirstRank;
        if (nNets > 0) {
            backToNet = graph.pattern == GraphPattern.RING ? nGpus - 1
                    : graph.pattern == GraphPattern.SPLIT_TREE ? 1 : 0;
            backToFirstRank = -1;
            searchRecNet(graph, backToNet, backToFirstRank, time);
            return;
        }
        backToNet = -1;
        backToFirstRank = graph.pattern == GraphPattern.RING ? nGpus - 1 : -1;
        if (graph.nChannels == 0) {
            tryGpu(graph, 0, backToNet, backToFirstRank, FORCED_ORDER_PCI, time, null, -1, 0);
        } else {
            int g = SearchOrder.replayGpu(system, graph, -1);
            tryGpu(graph, 0, backToNet, backToFirstRank, FORCED_ORDER_REPLAY, time, null, -1, g);
        }
        if (!graph.sameChannels || graph.nChannels == 0) {
            for (int g = 0; g < nGpus; g++) {
                tryGpu(graph, 0, backToNet, backToFirstRank, 0, time, null, -1, g);
            }
        }
    }

    private void searchRecNet(TopoGraph graph, int backToNet, int backToFirstRank, Budget time) {
        double bw = graph.bwInter;
        int[] nets = SearchOrder.selectNets(system, graph.typeInter, -1);
        for (int i = 0; i < nets.length; i++) {
            int n = nets[(graph.nChannels + i) % nets.length];
            TopoNode net = system.node(NodeType.NET, n);
            if (net.netBwGBps() < bw) {
                continue;
            }
            if (graph.crossNic == 2 && graph.pattern == GraphPattern.RING && (graph.nChannels & 1) == 1
                    && net.id() != graph.inter[(graph.nChannels - 1) * 2 + 1]) {
                continue; // odd channels enter by the NIC the previous channel left by (rail alternation)
            }
            graph.inter[graph.nChannels * 2] = net.id();
            graph.latencyInter = net.netLatencyUs();
            Reservation.reserveNet(system, net, bw, 1);
            try {
                if (graph.nChannels > 0) {
                    int g = SearchOrder.replayGpu(system, graph, -1);
                    tryGpu(graph, 0, backToNet, backToFirstRank, FORCED_ORDER_REPLAY, time, NodeType.NET, n, g);
                }
                if (graph.nChannels == 0 || !graph.sameChannels) {
                    if (graph.nChannels == 0 && system.count(NodeType.NVS) == 0) {
                        // PCI order first as a reference, on a small budget of its own.
                        Budget t = new Budget(1 << 10);
                        tryGpu(graph, 0, backToNet, backToFirstRank, FORCED_ORDER_PCI, t, NodeType.NET, n, 0);
                        if (t.left == -1) {
                            time.left = -1;
                        }
                    }
                    if (SearchOrder.netLocalType(system, n) != PathType.DIS) {
                        int[] locals = io.jccl.internal.topology.paths.Locality.local(system, NodeType.NET, n,
                                NodeType.GPU);
                        for (int g : locals) {
                            tryGpu(graph, 0, backToNet, backToFirstRank, 0, time, NodeType.NET, n, g);
                        }
                    }
                }
            } finally {
                Reservation.reserveNet(system, net, bw, -1);
            }
        }
    }

    private void tryGpu(TopoGraph graph, int step, int backToNet, int backToFirstRank, int forcedOrder, Budget time,
                        NodeType fromType, int fromIndex, int g) {
        if (g < 0) {
            return;
        }
        long flag = 1L << graph.nChannels;
        TopoNode gpu = Reservation.follow(system, graph, fromType, fromIndex, NodeType.GPU, g, 1);
        if (gpu == null) {
            return;
        }
        gpu.toggleUsed(flag);
        try {
            recGpu(graph, gpu, step, backToNet, backToFirstRank, forcedOrder, time);
        } finally {
            gpu.toggleUsed(flag);
            Reservation.follow(system, graph, fromType, fromIndex, NodeType.GPU, g, -1);
        }
    }

    private void recGpu(TopoGraph graph, TopoNode gpu, int step, int backToNet, int backToFirstRank, int forcedOrder,
                        Budget time) {
        if (time.left <= 0) {
            return;
        }
        time.left--;
        steps++;
        if (step == nGpus) {
            channelComplete(graph, time);
            return;
        }
        graph.intra[graph.nChannels * nGpus + step] = gpu.gpuRank();
        int g = system.indexOf(gpu);
        if (step == backToNet) {
            backToNic(graph, gpu, g, step, backToFirstRank, forcedOrder, time);
        } else if (step < nGpus - 1) {
            int[] next;
            if (forcedOrder == FORCED_ORDER_PCI) {
                next = new int[] {step + 1};
            } else if (forcedOrder == FORCED_ORDER_REPLAY) {
                next = new int[] {SearchOrder.replayGpu(system, graph, step)};
            } else {
                next = SearchOrder.nextGpus(system, graph, g,
                        backToNet == -1 ? -1 : backToNet == step + 1 ? 1 : 0);
            }
            for (int n : next) {
                tryGpu(graph, step + 1, backToNet, backToFirstRank, forcedOrder, time, NodeType.GPU, g, n);
            }
        } else if (step == backToFirstRank) {
            int first = system.gpuIndexOfRank(graph.intra[graph.nChannels * nGpus]);
            TopoNode firstGpu = Reservation.follow(system, graph, NodeType.GPU, g, NodeType.GPU, first, 1);
            if (firstGpu != null) {
                try {
                    recGpu(graph, firstGpu, step + 1, backToNet, -1, forcedOrder, time);
                } finally {
                    Reservation.follow(system, graph, NodeType.GPU, g, NodeType.GPU, first, -1);
                }
            }
        } else {
            recGpu(graph, gpu, nGpus, -1, -1, forcedOrder, time);
        }
    }

    /** From GPU g, go back to a NIC (the ring's last GPU; the tree's first, or second for split/balanced trees). */
    private void backToNic(TopoGraph graph, TopoNode gpu, int g, int step, int backToFirstRank, int forcedOrder,
                           Budget time) {
        int startNet = system.netIndexOfId(graph.inter[graph.nChannels * 2]);
        TopoNode start = system.node(NodeType.NET, startNet);
        for (int n : SearchOrder.selectNets(system, graph.typeInter, g)) {
            TopoNode net = system.node(NodeType.NET, n);
            if (graph.pattern == GraphPattern.TREE && net.id() != start.id()) {
                continue; // trees are symmetric
            }
            if (graph.pattern == GraphPattern.RING && graph.crossNic == 2) {
                if ((graph.nChannels & 1) == 1 && net.id() != graph.inter[(graph.nChannels - 1) * 2]) {
                    continue; // odd channels leave by the NIC the previous channel entered by
                }
            } else if (graph.crossNic == 0 && (net.netAsic() != start.netAsic() || net.netPort() != start.netPort())) {
                continue;
            }
            int nextBackToNet = -1;
            double bwInterSave = graph.bwInter;
            if (graph.pattern == GraphPattern.BALANCED_TREE) {
                // Half of the NIC traffic on each of the first two GPUs.
                if (step == 0) {
                    nextBackToNet = 1;
                } else if (net.id() != graph.inter[graph.nChannels * 2 + 1]) {
                    continue;
                }
                graph.bwInter /= 2;
            }
            TopoNode reached = Reservation.follow(system, graph, NodeType.GPU, g, NodeType.NET, n, 1);
            graph.bwInter = bwInterSave;
            if (reached == null) {
                continue;
            }
            graph.inter[graph.nChannels * 2 + 1] = net.id();
            try {
                recGpu(graph, gpu, step, nextBackToNet, backToFirstRank, forcedOrder, time);
            } finally {
                if (graph.pattern == GraphPattern.BALANCED_TREE) {
                    graph.bwInter /= 2;
                }
                Reservation.follow(system, graph, NodeType.GPU, g, NodeType.NET, n, -1);
                graph.bwInter = bwInterSave;
            }
        }
    }

    private void channelComplete(TopoGraph graph, Budget time) {
        graph.nChannels++;
        try {
            if (compare(graph, best)) {
                best.copyFrom(graph);
                if (graph.nChannels == graph.maxChannels) {
                    time.left = -1;
                }
            }
            if (graph.nChannels < graph.maxChannels) {
                searchRec(graph, time);
            }
        } finally {
            graph.nChannels--;
        }
    }

    /**
     * True when {@code graph} beats {@code ref}: enough channels, then more total bandwidth
     * ({@code nChannels × bwIntra}), then (same pattern and cross-NIC setting) fewer hops. An even reference is kept
     * against an odd candidate with fewer channels than NICs unless the candidate carries more.
     */
    boolean compare(TopoGraph graph, TopoGraph ref) {
        if (graph.nChannels < graph.minChannels) {
            return false;
        }
        double total = graph.nChannels * graph.bwIntra;
        double refTotal = ref.nChannels * ref.bwIntra;
        boolean evenReference = ref.nChannels > 0 && ref.nChannels % 2 == 0;
        if (graph.nChannels % 2 == 1 && graph.nChannels < nNets && evenReference && refTotal >= total) {
            return false;
        }
        if (total > refTotal) {
            return true;
        }
        if (total < refTotal) {
            return false;
        }
        return graph.pattern == ref.pattern && graph.crossNic == ref.crossNic && graph.nHops < ref.nHops;
    }
}
