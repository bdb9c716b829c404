package io.jccl.internal.topology.setup;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoConstants;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.TopoSystem;
import io.jccl.internal.topology.channels.ChannelPostset;
import io.jccl.internal.topology.channels.ChannelPreset;
import io.jccl.internal.topology.channels.CommChannels;
import io.jccl.internal.topology.channels.TopoRanks;
import io.jccl.internal.topology.paths.PathFinder;
import io.jccl.internal.topology.search.GraphInfo;
import io.jccl.internal.topology.search.GraphPattern;
import io.jccl.internal.topology.search.GraphSearch;
import io.jccl.internal.topology.search.GraphXml;
import io.jccl.internal.topology.search.TopoGraph;
import io.jccl.internal.topology.xml.SystemBuilder;
import io.jccl.internal.topology.xml.TopoXml;
import io.jccl.internal.topology.xml.XmlElement;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The topology phase of communicator init, in NCCL's order: build the node's system from XML, drop the NICs when all
 * ranks share the node, compute paths, search the ring graph (1..32 channels) and the tree graph (as many channels as
 * the ring), then, with every rank's graph summaries and ranks, agree on the graphs and join rings and trees.
 *
 * <p>A communicator calls {@link #planNode} for its own node, allgathers {@link GraphInfo}s and {@link TopoRanks},
 * then calls {@link #join}. {@link #simulate} runs the whole thing for n identical nodes in one process (tools, tests).
 *
 * <p>Runs on the initialising thread; mirrors the topology part of initTransportsRank (src/init.cc).
 */
public final class TopoSetup {
    private static final System.Logger LOG = System.getLogger("io.jccl.topology");

    /** Most ring channels a search looks for (the postset doubles them). */
    public static final int RING_MAX_CHANNELS = TopoConstants.MAXCHANNELS / 2;

    private TopoSetup() {
    }

    /**
     * Builds and searches one node.
     *
     * @param xml       the node's topology with ranks on the communicator's GPUs
     * @param multiNode whether ranks live on other nodes too (keeps the NICs in the search)
     */
    public static NodePlan planNode(XmlElement xml, TopoParams params, boolean multiNode) {
        TopoSystem system = SystemBuilder.build(xml);
        if (!multiNode) {
            while (system.count(NodeType.NET) > 0) {
                system.removeNode(NodeType.NET, system.count(NodeType.NET) - 1);
            }
        }
        PathFinder.computePaths(system, params);
        if (system.count(NodeType.GPU) == 0) {
            throw new JcclException(Result.INVALID_ARGUMENT, xml.where() + ": no GPU with a rank in this topology;"
                    + " use planHostNode for CPU-only ranks");
        }
        TopoGraph ring = null;
        TopoGraph tree = null;
        if (params.graphFile() != null) {
            Path f = Path.of(params.graphFile());
            ring = GraphXml.load(f, system, TopoGraph.ID_RING, 1, RING_MAX_CHANNELS);
            tree = GraphXml.load(f, system, TopoGraph.ID_TREE, 1, RING_MAX_CHANNELS);
        }
        if (ring == null) {
            ring = GraphSearch.compute(system, params, TopoGraph.ID_RING, GraphPattern.RING, 1, RING_MAX_CHANNELS);
        }
        if (tree == null) {
            tree = GraphSearch.compute(system, params, TopoGraph.ID_TREE, GraphPattern.BALANCED_TREE, ring.nChannels(),
                    ring.nChannels());
        }
        if (params.graphDumpFile() != null) {
            GraphXml.dump(system, List.of(ring, tree), Path.of(params.graphDumpFile()));
        }
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            TopoGraph r = ring;
            TopoGraph t = tree;
            LOG.log(System.Logger.Level.DEBUG, () -> TopoReport.system(system) + TopoReport.paths(system)
                    + TopoReport.graph(system, r) + TopoReport.graph(system, t));
        }
        return new NodePlan(system, ring, tree);
    }

    /**
     * A node of CPU-only ranks (no GPUs to search): every channel visits the node's ranks in order, at the given
     * per-channel bandwidth, typed PHB inside the node (shared memory through the host) and NET across nodes.
     */
    public static NodePlan planHostNode(TopoSystem system, int[] ranks, int nChannels, double bwGBps) {
        TopoGraph ring = TopoGraph.ordered(TopoGraph.ID_RING, GraphPattern.RING, ranks, nChannels, bwGBps,
                PathType.PHB);
        TopoGraph tree = TopoGraph.ordered(TopoGraph.ID_TREE, GraphPattern.TREE, ranks, nChannels, bwGBps,
                PathType.PHB);
        return new NodePlan(system, ring, tree);
    }

    /**
     * The cross-rank part: merge every rank's graph summaries, use min(ring, tree) channels, preset each rank, postset
     * all. {@code nodes.get(n)} is node n's plan; ranks of node n must appear in its graphs.
     */
    public static CommPlan join(int[] nodeOfRank, List<NodePlan> nodes, int minChannels, int maxChannels) {
        int nRanks = nodeOfRank.length;
        List<GraphInfo> ringInfos = new ArrayList<>();
        List<GraphInfo> treeInfos = new ArrayList<>();
        for (int r = 0; r < nRanks; r++) {
            ringInfos.add(nodes.get(nodeOfRank[r]).ring().info());
            treeInfos.add(nodes.get(nodeOfRank[r]).tree().info());
        }
        GraphInfo ring = GraphInfo.merge(ringInfos);
        GraphInfo tree = GraphInfo.merge(treeInfos);
        int nChannels = Math.min(ring.nChannels(), tree.nChannels());
        List<NodePlan> agreed = new ArrayList<>();
        GraphPattern maxTree = GraphPattern.BALANCED_TREE;
        for (NodePlan p : nodes) {
            agreed.add(new NodePlan(p.system(), p.ring().agreed(ring), p.tree().agreed(tree)));
            if (p.tree().pattern().ncclId() > maxTree.ncclId()) {
                maxTree = p.tree().pattern();
            }
        }
        List<TopoRanks> ranks = new ArrayList<>();
        ChannelPreset.Positions[][] pos = new ChannelPreset.Positions[agreed.size()][];
        for (int r = 0; r < nRanks; r++) {
            int n = nodeOfRank[r];
            NodePlan p = agreed.get(n);
            if (pos[n] == null) {
                pos[n] = new ChannelPreset.Positions[] {ChannelPreset.Positions.of(p.ring(), nChannels),
                        ChannelPreset.Positions.of(p.tree(), nChannels)};
            }
            ranks.add(ChannelPreset.preset(r, nChannels, p.ring(), p.tree(), pos[n][0], pos[n][1]));
        }
        CommChannels channels = ChannelPostset.postset(nodeOfRank, ranks, nChannels, ring.crossNic(), minChannels,
                maxChannels);
        return new CommPlan(nRanks, nodes.size(), nodeOfRank, agreed, ring, tree, maxTree, channels);
    }

    /**
     * Plans {@code nRanks} ranks spread over identical nodes described by {@code nodeXml}: {@code ranksPerNode} ranks
     * per node (0 = one per GPU, or all ranks on one node without GPUs). The node is searched once and its graphs are
     * reused with shifted ranks for the other nodes.
     *
     * @param hostChannels channels per node for CPU-only nodes
     * @param hostBwGBps   per-channel bandwidth assumed for CPU-only nodes
     */
    public static CommPlan simulate(XmlElement nodeXml, int nRanks, int ranksPerNode, TopoParams params,
                                    int minChannels, int maxChannels, int hostChannels, double hostBwGBps) {
        if (nRanks < 1) {
            throw new JcclException(Result.INVALID_ARGUMENT, "nRanks must be at least 1, got " + nRanks);
        }
        int nGpus = TopoXml.gpus(nodeXml).size();
        int ppn = ranksPerNode > 0 ? ranksPerNode : nGpus > 0 ? Math.min(nGpus, nRanks) : nRanks;
        if (nGpus > 0 && ppn > nGpus) {
            throw new JcclException(Result.INVALID_ARGUMENT, ppn + " ranks per node but the topology has only " + nGpus
                    + " GPUs");
        }
        if (nRanks % ppn != 0) {
            throw new JcclException(Result.INVALID_ARGUMENT, nRanks + " ranks do not fill nodes of " + ppn
                    + " ranks evenly; give a multiple of " + ppn);
        }
        int nNodes = nRanks / ppn;
        int[] nodeOfRank = new int[nRanks];
        for (int r = 0; r < nRanks; r++) {
            nodeOfRank[r] = r / ppn;
        }
        XmlElement xml = TopoXml.copy(nodeXml);
        NodePlan first;
        if (nGpus == 0) {
            TopoSystem system = SystemBuilder.build(xml);
            if (nNodes == 1) {
                while (system.count(NodeType.NET) > 0) {
                    system.removeNode(NodeType.NET, 0);
                }
            }
            PathFinder.computePaths(system, params);
            int[] ranks = new int[ppn];
            for (int i = 0; i < ppn; i++) {
                ranks[i] = i;
            }
            first = planHostNode(system, ranks, Math.max(1, Math.min(hostChannels, RING_MAX_CHANNELS)), hostBwGBps);
        } else {
            TopoXml.assignRanks(xml, 0, ppn);
            first = planNode(xml, params, nNodes > 1);
        }
        List<NodePlan> nodes = new ArrayList<>();
        for (int n = 0; n < nNodes; n++) {
            nodes.add(n == 0 ? first : new NodePlan(first.system(), first.ring().withRankOffset(n * ppn),
                    first.tree().withRankOffset(n * ppn)));
        }
        return join(nodeOfRank, nodes, minChannels, maxChannels);
    }
}
