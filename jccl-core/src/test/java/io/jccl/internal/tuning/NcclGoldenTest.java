package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.internal.topology.Fixtures;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.TopoFormat;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.TopoPath;
import io.jccl.internal.topology.TopoSystem;
import io.jccl.internal.topology.search.TopoGraph;
import io.jccl.internal.topology.setup.CommPlan;
import io.jccl.internal.topology.setup.TopoSetup;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Compares JCCL with what NCCL 2.28.9 itself printed on a 2×H200 machine (rank 0's INFO log and topology dump in
 * src/test/resources/topology/nccl-2.28.9-2xH200): system bandwidths, every path, both graphs with their channels,
 * the 24 channels' rings and trees, the Tree/Ring latency-bandwidth table, the thread thresholds and one AllReduce
 * decision. Everything expected is read from NCCL's log, nothing is typed in.
 */
class NcclGoldenTest {
    private static List<String> log;
    private static CommPlan plan;
    private static Tuner tuner;

    @BeforeAll
    static void setUp() throws Exception {
        log = Files.readAllLines(Fixtures.path("nccl-2.28.9-2xH200/nccl-init-log-rank0.txt"));
        plan = TopoSetup.simulate(Fixtures.xml(Fixtures.NCCL_2XH200), 2, 0, TopoParams.defaults(), 0, 0, 2, 6);
        tuner = Tuner.forGpu(TuningTopology.from(plan), TuningParams.defaults(), null);
    }

    private static String line(String prefix) {
        return log.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow(() ->
                new AssertionError("NCCL log has no line starting with " + prefix));
    }

    @Test
    void systemBandwidths() {
        TopoSystem s = plan.nodes().get(0).system();
        assertThat(line("=== System")).isEqualTo("=== System : maxBw " + TopoFormat.bw(s.maxBwGBps()) + " totalBw "
                + TopoFormat.bw(s.totalBwGBps()) + " ===");
    }

    @Test
    void everyPathMatches() {
        // NCCL printed the paths before dropping the NIC (one node), so compare with NICs kept.
        TopoSystem s = Fixtures.system(Fixtures.NCCL_2XH200, true, TopoParams.defaults());
        Pattern entry = Pattern.compile("(\\S+) \\((\\d+)/([\\d.]+)/(\\w+)\\)");
        int compared = 0;
        for (String l : log) {
            if (!l.matches("^(GPU|NET)/\\S+ :.*")) {
                continue;
            }
            TopoNode from = byLabel(s, l.substring(0, l.indexOf(' ')));
            Matcher m = entry.matcher(l.substring(l.indexOf(':') + 1));
            while (m.find()) {
                TopoNode to = byLabel(s, m.group(1));
                TopoPath p = from.pathTo(to.type(), s.indexOf(to));
                assertThat(p.hops() + "/" + TopoFormat.bw(p.bwGBps()) + "/" + p.type()).as("%s -> %s", from, to)
                        .isEqualTo(m.group(2) + "/" + m.group(3) + "/" + m.group(4));
                compared++;
            }
        }
        assertThat(compared).isEqualTo(14);
    }

    private static TopoNode byLabel(TopoSystem s, String label) {
        for (NodeType t : NodeType.values()) {
            for (TopoNode n : s.nodes(t)) {
                if (n.label().equals(label)) {
                    return n;
                }
            }
        }
        throw new AssertionError("no node " + label);
    }

    @Test
    void graphsMatch() {
        TopoSystem s = plan.nodes().get(0).system();
        Map<String, Integer> rankOfLabel = new HashMap<>();
        for (TopoNode g : s.nodes(NodeType.GPU)) {
            rankOfLabel.put(g.label(), g.gpuRank());
        }
        List<TopoGraph> mine = List.of(plan.nodes().get(0).ring(), plan.nodes().get(0).tree());
        int graph = -1;
        int checkedChannels = 0;
        for (String l : log) {
            if (l.startsWith("Pattern ")) {
                graph++;
                assertThat(mine.get(graph).toString()).isEqualTo(l);
            } else if (graph >= 0 && graph < 2 && l.matches("^ ?\\d+ : .*")) {
                int c = Integer.parseInt(l.substring(0, l.indexOf(':')).trim());
                String[] labels = l.substring(l.indexOf(':') + 1).trim().split(" ");
                int[] ranks = new int[labels.length];
                for (int i = 0; i < labels.length; i++) {
                    ranks[i] = rankOfLabel.get(labels[i]);
                }
                assertThat(mine.get(graph).channelRanks(c)).as("graph %d channel %d", graph, c).containsExactly(ranks);
                checkedChannels++;
            } else if (l.startsWith("comm ")) {
                break;
            }
        }
        assertThat(graph).isEqualTo(1);
        assertThat(checkedChannels).isEqualTo(24);
    }

    @Test
    void channelsRingsAndTreesMatch() {
        // "24 coll channels": min(ring 12, tree 12) doubled.
        assertThat(line("24 coll channels")).isNotNull();
        var ch = plan.channels();
        assertThat(ch.nChannels()).isEqualTo(24);
        Pattern ring = Pattern.compile("^Channel (\\d+)/24 : (.*)$");
        Pattern tree = Pattern.compile("^Tree (\\d+) : (-?\\d+) -> 0 -> (-?\\d+)/(-?\\d+)/(-?\\d+)$");
        int rings = 0;
        int trees = 0;
        for (String l : log) {
            Matcher m = ring.matcher(l);
            if (m.matches()) {
                int c = Integer.parseInt(m.group(1));
                String order = java.util.Arrays.toString(ch.ringOrder(c, 0)).replaceAll("[\\[\\],]", "");
                assertThat(order).isEqualTo(m.group(2).trim());
                rings++;
            }
            m = tree.matcher(l);
            if (m.matches()) {
                int c = Integer.parseInt(m.group(1));
                assertThat(ch.treeUp()[c][0]).as("tree %d up", c).isEqualTo(Integer.parseInt(m.group(2)));
                assertThat(ch.treeDown()[c][0]).as("tree %d down", c).containsExactly(Integer.parseInt(m.group(3)),
                        Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5)));
                trees++;
            }
        }
        assertThat(rings).isEqualTo(24);
        assertThat(trees).isEqualTo(24);
    }

    @Test
    void tuningTableMatches() {
        ModelTable t = tuner.model().table();
        int rows = 0;
        for (String l : log) {
            String name = l.split("\\|")[0].trim();
            int f = -1;
            for (int i = 0; i < AlgoProtoFilter.FUNCS.length; i++) {
                if (AlgoProtoFilter.FUNCS[i].ncclName().equals(name)) {
                    f = i;
                }
            }
            if (f < 0 || rows >= 5) {
                continue; // only the first table holds Tree and Ring
            }
            String[] cells = l.split("\\|");
            List<double[]> values = new ArrayList<>();
            for (int k = 1; k <= 6; k++) {
                String[] lb = cells[k].trim().split("/");
                values.add(new double[] {Double.parseDouble(lb[0].trim()), Double.parseDouble(lb[1].trim())});
            }
            int k = 0;
            for (Algorithm a : new Algorithm[] {Algorithm.TREE, Algorithm.RING}) {
                for (Protocol p : Protocol.values()) {
                    double[] v = values.get(k++);
                    boolean on = t.enabled(f, a, p);
                    String what = name + " " + a + "/" + p;
                    assertThat(on ? t.latUs(f, a, p) : 0.0).as(what + " latency").isCloseTo(v[0], within(0.051));
                    assertThat(on ? t.bwGBps(f, a, p) : 0.0).as(what + " bandwidth").isCloseTo(v[1], within(0.051));
                }
            }
            rows++;
        }
        assertThat(rows).isEqualTo(5);
    }

    @Test
    void threadThresholdsAndAllReduceDecisionMatch() {
        ChannelPolicy policy = new ChannelPolicy(2, TuningParams.defaults());
        String expected = policy.threshold(Algorithm.TREE, Protocol.LL) + "/" + policy.threshold(Algorithm.TREE,
                Protocol.LL128) + "/" + policy.threshold(Algorithm.TREE, Protocol.SIMPLE) + " | "
                + policy.threshold(Algorithm.RING, Protocol.LL) + "/" + policy.threshold(Algorithm.RING, Protocol.LL128)
                + "/" + policy.threshold(Algorithm.RING, Protocol.SIMPLE);
        assertThat(line("threadThresholds")).startsWith("threadThresholds " + expected + " |");
        Matcher m = Pattern.compile("AllReduce: (\\d+) Bytes -> Algo (\\w+) proto (\\w+) channel\\{Lo\\.\\.Hi\\}="
                + "\\{0\\.\\.(\\d+)\\}").matcher(line("AllReduce: "));
        assertThat(m.matches()).isTrue();
        ModelChoice s = tuner.select(Collective.ALL_REDUCE, Long.parseLong(m.group(1)), 1);
        assertThat(s.algorithm().name()).isEqualTo(m.group(2));
        assertThat(s.protocol().name()).isEqualTo(m.group(3));
        assertThat(s.nChannels()).isEqualTo(Integer.parseInt(m.group(4)) + 1);
    }
}
