package io.jccl.internal.topology;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The topology of one host: nodes grouped by type (index = position in the type's list, as NCCL's contiguous arrays),
 * the links between them and, once computed, the paths. Built from XML (NCCL_TOPO_FILE or discovery), then handed to
 * the path computation and the graph search.
 *
 * <p>Owned by the thread that initialises the communicator; not thread-safe. Mirrors NCCL's {@code ncclTopoSystem}.
 */
public final class TopoSystem {
    private final List<List<TopoNode>> nodes = new ArrayList<>();
    private boolean pathsComputed;
    /** Best bandwidth of one channel (GPU→GPU or GPU→NET), set by the search init. */
    private double maxBwGBps;
    /** Best aggregate bandwidth out of one GPU, set by the search init. */
    private double totalBwGBps;

    public TopoSystem() {
        for (int t = 0; t < NodeType.COUNT; t++) {
            nodes.add(new ArrayList<>());
        }
    }

    public List<TopoNode> nodes(NodeType type) {
        return Collections.unmodifiableList(nodes.get(type.ordinal()));
    }

    public int count(NodeType type) {
        return nodes.get(type.ordinal()).size();
    }

    public TopoNode node(NodeType type, int index) {
        return nodes.get(type.ordinal()).get(index);
    }

    public int indexOf(TopoNode n) {
        return nodes.get(n.type().ordinal()).indexOf(n);
    }

    /** Creates a node; fails when NCCL's cap of nodes per type would be passed. */
    public TopoNode createNode(NodeType type, long id) {
        List<TopoNode> list = nodes.get(type.ordinal());
        if (list.size() >= TopoConstants.MAX_NODES) {
            throw new JcclException(Result.INTERNAL_ERROR, "too many topology nodes of type " + type
                    + " (max " + TopoConstants.MAX_NODES + ")");
        }
        TopoNode n = new TopoNode(type, id);
        if (type == NodeType.GPU) {
            n.setGpu(-1, -1, -1, false);
        }
        list.add(n);
        return n;
    }

    /** The node of that type and id, or null. */
    public TopoNode find(NodeType type, long id) {
        for (TopoNode n : nodes.get(type.ordinal())) {
            if (n.id() == id) {
                return n;
            }
        }
        return null;
    }

    /** Index of the GPU that holds {@code rank}, or -1. */
    public int gpuIndexOfRank(int rank) {
        List<TopoNode> gpus = nodes.get(NodeType.GPU.ordinal());
        for (int g = 0; g < gpus.size(); g++) {
            if (gpus.get(g).gpuRank() == rank) {
                return g;
            }
        }
        return -1;
    }

    /** Index of the NET node with this id, or -1. */
    public int netIndexOfId(long id) {
        List<TopoNode> nets = nodes.get(NodeType.NET.ordinal());
        for (int n = 0; n < nets.size(); n++) {
            if (nets.get(n).id() == id) {
                return n;
            }
        }
        return -1;
    }

    /**
     * Removes node {@code index} of {@code type} and every link to it. Refused while paths are computed (their indices
     * would go stale): call {@link #clearPaths()} first.
     */
    public void removeNode(NodeType type, int index) {
        if (pathsComputed) {
            throw new JcclException(Result.INTERNAL_ERROR, "cannot remove topology node " + node(type, index).label()
                    + " while paths are computed; clear the paths first");
        }
        TopoNode victim = nodes.get(type.ordinal()).remove(index);
        for (List<TopoNode> list : nodes) {
            for (TopoNode n : list) {
                n.removeLinksTo(victim);
            }
        }
    }

    public boolean pathsComputed() {
        return pathsComputed;
    }

    public void markPathsComputed() {
        pathsComputed = true;
    }

    public void clearPaths() {
        for (List<TopoNode> list : nodes) {
            for (TopoNode n : list) {
                n.clearPaths();
            }
        }
        pathsComputed = false;
    }

    /** Connects every pair of CPUs (NUMA domains) of this host with a SYS link of the CPU model's bandwidth. */
    public void connectCpus() {
        List<TopoNode> cpus = nodes.get(NodeType.CPU.ordinal());
        for (TopoNode a : cpus) {
            for (TopoNode b : cpus) {
                if (a != b) {
                    a.connect(b, LinkType.SYS, a.cpuModel().interCpuBwGBps());
                }
            }
        }
    }

    /**
     * Orders links under each CPU so that the PCI link towards the parent comes last on every node of the PCI tree;
     * the search then prefers going down the tree (NCCL's ncclTopoSortSystem).
     */
    public void sortLinks() {
        for (TopoNode cpu : nodes.get(NodeType.CPU.ordinal())) {
            sortRec(cpu, null);
        }
    }

    private static void sortRec(TopoNode node, TopoNode up) {
        List<TopoLink> links = node.mutableLinks();
        if (up != null) {
            for (int l = 0; l < links.size(); l++) {
                if (links.get(l).remNode() == up) {
                    links.add(links.remove(l));
                    break;
                }
            }
        }
        for (TopoLink link : List.copyOf(links)) {
            if (link.type() == LinkType.PCI && link.remNode() != up && link.remNode().type() != NodeType.CPU) {
                sortRec(link.remNode(), node);
            }
        }
    }

    public double maxBwGBps() {
        return maxBwGBps;
    }

    public double totalBwGBps() {
        return totalBwGBps;
    }

    public void setSearchBandwidths(double maxBwGBps, double totalBwGBps) {
        this.maxBwGBps = maxBwGBps;
        this.totalBwGBps = totalBwGBps;
    }

    /** Lowest and highest compute capability of the GPUs ({0,0} without GPUs). */
    public int[] compCapRange() {
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (TopoNode g : nodes(NodeType.GPU)) {
            min = Math.min(min, g.gpuSm());
            max = Math.max(max, g.gpuSm());
        }
        return count(NodeType.GPU) == 0 ? new int[] {0, 0} : new int[] {min, max};
    }

    /** The CPU architecture/vendor/model of the host: that of the CPUs if all agree, MIXED otherwise. */
    public TopoNode firstCpu() {
        return count(NodeType.CPU) == 0 ? null : node(NodeType.CPU, 0);
    }

    /** Sum of the bandwidth over every link, to check that a search gave back everything it reserved. */
    public double totalLinkBandwidth() {
        double s = 0;
        for (List<TopoNode> list : nodes) {
            for (TopoNode n : list) {
                for (TopoLink l : n.links()) {
                    s += l.bwGBps();
                }
                if (n.type() == NodeType.NET) {
                    s += n.netBwGBps();
                }
            }
        }
        return s;
    }
}
