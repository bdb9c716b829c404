package io.jccl.internal.topology.setup;

import io.jccl.internal.topology.LinkType;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.TopoFormat;
import io.jccl.internal.topology.TopoLink;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoPath;
import io.jccl.internal.topology.TopoSystem;
import io.jccl.internal.topology.channels.CommChannels;
import io.jccl.internal.topology.search.TopoGraph;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Human-readable text of what topology found and decided: the system as a tree under each CPU (links with their
 * bandwidth), the paths between GPUs and to NICs (type, bandwidth, hops), the searched graphs in NCCL's log layout,
 * and the communicator's rings and trees.
 *
 * <p>Stateless pure functions, callable from any thread; used by explain and the {@code jccl topo} tool. The layout
 * follows NCCL's NCCL_DEBUG_SUBSYS=GRAPH output.
 */
public final class TopoReport {
    private TopoReport() {
    }

    public static String system(TopoSystem s) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "=== System : maxBw %s totalBw %s ===%n", TopoFormat.bw(s.maxBwGBps()),
                TopoFormat.bw(s.totalBwGBps())));
        Set<TopoNode> seen = new HashSet<>();
        for (TopoNode cpu : s.nodes(NodeType.CPU)) {
            sb.append(describe(cpu)).append('\n');
            seen.add(cpu);
            tree(cpu, 1, seen, sb);
        }
        for (TopoNode nvs : s.nodes(NodeType.NVS)) {
            if (seen.add(nvs)) {
                sb.append(describe(nvs)).append('\n');
            }
        }
        return sb.toString();
    }

    private static void tree(TopoNode n, int depth, Set<TopoNode> seen, StringBuilder sb) {
        for (TopoLink l : n.links()) {
            TopoNode r = l.remNode();
            boolean down = l.type() != LinkType.SYS && !(r.type() == NodeType.CPU);
            if (!down) {
                continue;
            }
            boolean first = seen.add(r);
            sb.append("  ".repeat(depth)).append("+ ").append(l.type().ncclName()).append('[')
                    .append(TopoFormat.bw(l.bwGBps())).append("] - ").append(describe(r)).append('\n');
            if (first && r.type() != NodeType.NVS) {
                tree(r, depth + 1, seen, sb);
            }
        }
    }

    /** A node with its main attributes. */
    public static String describe(TopoNode n) {
        return n.label() + switch (n.type()) {
            case GPU -> String.format(Locale.ROOT, " (rank %d, dev %d, sm %d%s)", n.gpuRank(), n.gpuDev(), n.gpuSm(),
                    n.gpuGdr() ? ", gdr" : "");
            case NET -> String.format(Locale.ROOT, " (%s, dev %d, %s GB/s, port %d%s)", n.netName(), n.netDev(),
                    TopoFormat.bw(n.netBwGBps()), n.netPort(), n.netGdr() ? ", gdr" : "");
            case CPU -> String.format(Locale.ROOT, " (numa %d, %s %s %s)", n.cpuNumaId(), n.cpuArch().xmlName(),
                    n.cpuVendor(), n.cpuModel());
            default -> "";
        };
    }

    /** Paths from every GPU to every GPU and NET, and from every NET to every GPU. */
    public static String paths(TopoSystem s) {
        StringBuilder sb = new StringBuilder();
        for (NodeType from : new NodeType[] {NodeType.GPU, NodeType.NET}) {
            for (TopoNode a : s.nodes(from)) {
                sb.append(a.label()).append(" :");
                for (NodeType to : new NodeType[] {NodeType.GPU, NodeType.NVS, NodeType.CPU, NodeType.NET}) {
                    if (from == NodeType.NET && to != NodeType.GPU) {
                        continue;
                    }
                    for (int i = 0; i < s.count(to); i++) {
                        TopoPath p = a.pathTo(to, i);
                        sb.append(' ').append(s.node(to, i).label()).append(" (").append(p.hops()).append('/')
                                .append(TopoFormat.bw(p.bwGBps())).append('/').append(p.type().ncclName()).append(')');
                    }
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    /** A graph in NCCL's log layout, channels by rank (NET entries for inter-node graphs). */
    public static String graph(TopoSystem s, TopoGraph g) {
        StringBuilder sb = new StringBuilder(g.toString());
        if (g.searchSteps() > 0) {
            sb.append("  (search: ").append(g.searchSteps()).append(" steps)");
        }
        sb.append('\n');
        boolean inter = s.count(NodeType.NET) > 0;
        String unit = s.count(NodeType.GPU) > 0 ? " GPU/" : " RANK/";
        for (int c = 0; c < g.nChannels(); c++) {
            sb.append(String.format(Locale.ROOT, "%2d :", c));
            if (inter) {
                sb.append(" NET/").append(netDev(s, g.netIn(c)));
            }
            for (int i = 0; i < g.nGpus(); i++) {
                sb.append(unit).append(g.rankAt(c, i));
            }
            if (inter) {
                sb.append(" NET/").append(netDev(s, g.netOut(c)));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String netDev(TopoSystem s, long id) {
        int n = s.netIndexOfId(id);
        return n < 0 ? "?" : Integer.toString(s.node(NodeType.NET, n).netDev());
    }

    /**
     * Rings (from rank 0) and trees of the communicator; with more than {@code maxRanks} ranks only the first two
     * channels are shown and tree lines are limited to {@code maxRanks} ranks.
     */
    public static String channels(CommChannels ch, int maxRanks) {
        StringBuilder sb = new StringBuilder();
        int shown = ch.nRanks() > maxRanks ? Math.min(2, ch.nChannels()) : ch.nChannels();
        sb.append(ch.nChannels()).append(" channels, tree depth ").append(ch.treeDepth()).append('\n');
        for (int c = 0; c < shown; c++) {
            sb.append(String.format(Locale.ROOT, "Ring %02d :", c));
            int[] order = ch.ringOrder(c, 0);
            for (int i = 0; i < Math.min(order.length, maxRanks); i++) {
                sb.append(' ').append(order[i]);
            }
            sb.append(order.length > maxRanks ? " ...\n" : "\n");
        }
        for (int c = 0; c < shown; c++) {
            sb.append(String.format(Locale.ROOT, "Tree %02d :", c));
            for (int r = 0; r < Math.min(ch.nRanks(), maxRanks); r++) {
                int[] d = ch.treeDown()[c][r];
                sb.append(String.format(Locale.ROOT, " %d/%d/%d->%d->%d", d[0], d[1], d[2], r, ch.treeUp()[c][r]));
            }
            sb.append(ch.nRanks() > maxRanks ? " ...\n" : "\n");
        }
        if (shown < ch.nChannels()) {
            sb.append("(").append(ch.nChannels() - shown).append(" more channels not shown)\n");
        }
        return sb.toString();
    }
}
