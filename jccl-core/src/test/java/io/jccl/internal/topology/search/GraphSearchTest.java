package io.jccl.internal.topology.search;

import io.jccl.internal.topology.Fixtures;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.TopoSystem;
import io.jccl.internal.topology.paths.PathFinder;
import io.jccl.internal.topology.xml.TopoXml;
import io.jccl.internal.topology.xml.XmlParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Expected graphs derived by hand from NCCL's search rules (speed arrays, relaxation order, duplication).
 * sm90 intra speeds: 60 50 40 30 24 20 15 12 11 6 3; sm80 inter speeds: 48 30 28 24 20 18 15 12 10 9 7 6 5 ...
 */
class GraphSearchTest {
    private static final TopoParams P = TopoParams.defaults();

    private static TopoGraph ring(TopoSystem s) {
        return GraphSearch.compute(s, P, TopoGraph.ID_RING, GraphPattern.RING, 1, 32);
    }

    private static TopoGraph tree(TopoSystem s, int channels) {
        return GraphSearch.compute(s, P, TopoGraph.ID_TREE, GraphPattern.BALANCED_TREE, channels, channels);
    }

    @Test
    void dgxSingleNodeRing() {
        // GPU->NVS->GPU paths carry 370.8 GB/s; maxBw = totalBw = 370.8, so pass 1 starts at 60 GB/s.
        // The ring 0..7 in PCI order (NVSwitch systems only try index neighbours) fits 6 channels at 60
        // (6 x 60 = 360 <= 370.8 on each GPU<->NVS link); lower speeds give no more total (50x7=350, 40x9=360,
        // 30x12=360 with more hops) and 24/60 < 0.49 ends pass 1. Duplication (60 >= 25, not < 50) gives 12 x 30;
        // pass 2 cannot fit 12 channels at 40/50/60. NCCL's DGX-H100 logs show the same ring order.
        TopoSystem s = Fixtures.system(Fixtures.DGX_H100, false, P);
        TopoGraph g = ring(s);
        assertThat(g.nChannels()).isEqualTo(12);
        assertThat(g.bwIntra()).isEqualTo(30.0);
        assertThat(g.bwInter()).isEqualTo(30.0);
        assertThat(g.typeIntra()).isEqualTo(PathType.NVL);
        assertThat(g.sameChannels()).isTrue();
        for (int c = 0; c < 12; c++) {
            assertThat(g.channelRanks(c)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        }
    }

    @Test
    void dgxSingleNodeTree() {
        // Trees ask for exactly the ring's 12 channels. totalBw for trees = 370.8 x 8/7 = 423.8, so the start speed is
        // the first s with 12 s <= 423.8: 30. The chain 0->1->...->7 takes 30 per channel on GPU_i->NVS and
        // NVS->GPU_i+1: 12 x 30 = 360 fits. No duplication (Hopper, < 50 GB/s, > 4 channels); pass 2 tries 40 inside
        // the node, which fits only 9 channels.
        TopoSystem s = Fixtures.system(Fixtures.DGX_H100, false, P);
        TopoGraph g = tree(s, 12);
        assertThat(g.pattern()).isEqualTo(GraphPattern.BALANCED_TREE);
        assertThat(g.nChannels()).isEqualTo(12);
        assertThat(g.bwIntra()).isEqualTo(30.0);
        assertThat(g.typeIntra()).isEqualTo(PathType.NVL);
        assertThat(g.channelRanks(11)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    }

    @Test
    void pcieTwoSocketRingAndTree() {
        // maxBw = 12 (Gen3 x16 between GPUs of one switch), sm80 intra speeds start at 12. A ring must cross the
        // sockets twice (1->2 and 3->0) over the 10 GB/s UPI link, so nothing fits at 12 for any path type; at 10
        // it fits once the allowed intra type reaches SYS: 1 channel, ring 0 1 2 3. Lower speeds do not carry more
        // (5 x 2 = 10 with more hops; 4/10 < 0.49 stops). 10 < 25: no duplication.
        TopoSystem s = Fixtures.system(Fixtures.PCIE_2SOCKET, false, P);
        TopoGraph r = ring(s);
        assertThat(r.nChannels()).isEqualTo(1);
        assertThat(r.bwIntra()).isEqualTo(10.0);
        assertThat(r.typeIntra()).isEqualTo(PathType.SYS);
        assertThat(r.channelRanks(0)).containsExactly(0, 1, 2, 3);
        // Tree chain 0-1-2-3 crosses UPI once each way: 1 channel at 10 (pass 2's 12 inside the node fails on UPI).
        TopoGraph t = tree(s, 1);
        assertThat(t.nChannels()).isEqualTo(1);
        assertThat(t.bwIntra()).isEqualTo(10.0);
        assertThat(t.bwInter()).isEqualTo(10.0);
        assertThat(t.typeIntra()).isEqualTo(PathType.SYS);
    }

    @Test
    void nvlinkPairRingAndTree() {
        // Direct NV18: 370.8 each way. Ring 0->1->0: 6 x 60, duplicated to 12 x 30 (as NCCL reported for 2xH200).
        // Tree: 12 channels, totalBw = 370.8 x 2 = 741.6 >= 12 x 60, so 60: the chain 0->1 uses only the 0->1
        // direction, 6 channels fill it, then (sameChannels off) 6 more run 1->0.
        TopoSystem s = Fixtures.system(Fixtures.NVLINK_PAIR, false, P);
        TopoGraph r = ring(s);
        assertThat(r.nChannels()).isEqualTo(12);
        assertThat(r.bwIntra()).isEqualTo(30.0);
        TopoGraph t = tree(s, 12);
        assertThat(t.nChannels()).isEqualTo(12);
        assertThat(t.bwIntra()).isEqualTo(60.0);
        assertThat(t.sameChannels()).isFalse();
        for (int c = 0; c < 12; c++) {
            assertThat(t.channelRanks(c)).containsExactly(c < 6 ? new int[] {0, 1} : new int[] {1, 0});
        }
    }

    @Test
    void fourH200MatchNcclsOwnGraphs() {
        // NCCL 2.28.9 on 4xH200 (every pair NV18 through NVSwitch; nccl-2.28.9-4xH200/graph.xml): ring and tree
        // graphs of 12 channels at 30 GB/s over NVLink, every channel 0 1 2 3, samechannels on.
        TopoSystem s = Fixtures.system("nccl-2.28.9-4xH200/topo.xml", false, P);
        TopoGraph r = ring(s);
        assertThat(r.nChannels()).isEqualTo(12);
        assertThat(r.bwIntra()).isEqualTo(30.0);
        assertThat(r.typeIntra()).isEqualTo(PathType.NVL);
        TopoGraph t = tree(s, r.nChannels());
        assertThat(t.nChannels()).isEqualTo(12);
        assertThat(t.bwIntra()).isEqualTo(30.0);
        for (int c = 0; c < 12; c++) {
            assertThat(r.channelRanks(c)).containsExactly(0, 1, 2, 3);
            assertThat(t.channelRanks(c)).containsExactly(0, 1, 2, 3);
        }
    }

    @Test
    void twoGpuNodeWithNicRing() {
        // Inter-node ring NET -> GPU -> GPU -> NET. maxBw = 12.5 (GPU->NET), sm80 inter speeds start at 12.
        // NET0 -> GPU0 is PIX, but the last GPU (1) reaches NET0 only by PXN (via GPU0 over NVLink), so the ring is
        // found once the allowed inter type is relaxed PIX -> PXB -> P2C -> PXN: NET0 GPU0 GPU1 NET0. The NIC's
        // 12.5 GB/s holds one channel at 12; 6 x 2 = 12 is no better; 12 < 25: no duplication; pass 2 fails at 15.
        TopoSystem s = Fixtures.system(Fixtures.TWO_GPU_NIC_NODE, true, P);
        TopoGraph g = ring(s);
        assertThat(g.nChannels()).isEqualTo(1);
        assertThat(g.bwIntra()).isEqualTo(12.0);
        assertThat(g.bwInter()).isEqualTo(12.0);
        assertThat(g.typeIntra()).isEqualTo(PathType.NVL);
        assertThat(g.typeInter()).isEqualTo(PathType.PXN);
        assertThat(g.channelRanks(0)).containsExactly(0, 1);
        long net0 = s.node(NodeType.NET, 0).id();
        assertThat(g.netIn(0)).isEqualTo(net0);
        assertThat(g.netOut(0)).isEqualTo(net0);
    }

    @Test
    void twoGpuNodeWithNicTree() {
        // Balanced tree: GPU0 takes the parent and one child (half of 12 each way), GPU1 the other child through
        // PXN. Trees also check the reverse path: NET0 -> GPU1 is PHB, so typeInter must reach PHB. 1 channel at 12;
        // pass 2 raises the intra-node speed while it is below twice the inter speed: 15, 18, 20, 24 (24 < 24 stops).
        TopoSystem s = Fixtures.system(Fixtures.TWO_GPU_NIC_NODE, true, P);
        TopoGraph g = tree(s, 1);
        assertThat(g.pattern()).isEqualTo(GraphPattern.BALANCED_TREE);
        assertThat(g.nChannels()).isEqualTo(1);
        assertThat(g.bwIntra()).isEqualTo(24.0);
        assertThat(g.bwInter()).isEqualTo(12.0);
        assertThat(g.typeInter()).isEqualTo(PathType.PHB);
        assertThat(g.channelRanks(0)).containsExactly(0, 1);
    }

    @Test
    void dgxMultiNodeRingUsesEveryNicAndAlternatesRails() {
        // With NICs, each channel enters by NET c at its GPU c (PIX, 48 GB/s: min of Gen5 x16 and 50 GB/s NIC), walks
        // the other GPUs over NVLink and leaves by the NIC of its last GPU; with 8 NICs of 50 GB/s, 8 channels of 48.
        // crossNic=2: odd channels enter by the NIC the previous channel left by and leave by the one it entered by.
        TopoSystem s = Fixtures.system(Fixtures.DGX_H100, true, P);
        TopoGraph g = ring(s);
        assertThat(g.nChannels()).isEqualTo(8);
        assertThat(g.bwInter()).isEqualTo(48.0);
        assertThat(g.crossNic()).isEqualTo(2);
        for (int c = 0; c < 8; c++) {
            int[] ranks = g.channelRanks(c);
            assertThat(ranks[0]).isEqualTo(c);
            assertThat(Arrays.stream(ranks).sorted().toArray()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
            int in = s.netIndexOfId(g.netIn(c));
            int out = s.netIndexOfId(g.netOut(c));
            assertThat(in).isEqualTo(c);
            assertThat(out).isEqualTo(ranks[7]); // leaves by the NIC next to its last GPU (PIX)
            if (c % 2 == 1) {
                assertThat(g.netIn(c)).isEqualTo(g.netOut(c - 1));
                assertThat(g.netOut(c)).isEqualTo(g.netIn(c - 1));
            }
        }
        // Hopper: the balanced tree is retried as a plain tree; one NIC per channel, in and out by the same NIC.
        TopoGraph t = tree(s, g.nChannels());
        assertThat(t.pattern()).isEqualTo(GraphPattern.TREE);
        assertThat(t.nChannels()).isEqualTo(8);
        for (int c = 0; c < 8; c++) {
            assertThat(t.netIn(c)).isEqualTo(t.netOut(c));
            assertThat(t.rankAt(c, 0)).isEqualTo(c);
        }
    }

    @ParameterizedTest
    @CsvSource({"dgx-h100.xml,false", "dgx-h100.xml,true", "pcie-2socket.xml,false", "pcie-2socket.xml,true",
        "nvlink-pair-h200.xml,false", "two-gpu-one-nic-node.xml,true", "nccl-2.28.9-2xH200/topo.xml,false",
        "nccl-2.28.9-4xH200/topo.xml,false"})
    void searchGivesBackAllBandwidthAndIsDeterministic(String fixture, boolean nets) {
        TopoSystem s = Fixtures.system(fixture, nets, P);
        double before = s.totalLinkBandwidth();
        TopoGraph r1 = ring(s);
        TopoGraph t1 = tree(s, r1.nChannels());
        assertThat(s.totalLinkBandwidth()).isCloseTo(before, within(1e-6));
        for (var n : s.nodes(NodeType.GPU)) {
            assertThat(n.usedMask()).isZero();
        }
        TopoSystem s2 = Fixtures.system(fixture, nets, P);
        TopoGraph r2 = ring(s2);
        TopoGraph t2 = tree(s2, r2.nChannels());
        assertThat(r2.toString()).isEqualTo(r1.toString());
        assertThat(t2.toString()).isEqualTo(t1.toString());
        for (int c = 0; c < r1.nChannels(); c++) {
            assertThat(r2.channelRanks(c)).containsExactly(r1.channelRanks(c));
            assertThat(r2.netIn(c)).isEqualTo(r1.netIn(c));
        }
        for (int c = 0; c < t1.nChannels(); c++) {
            assertThat(t2.channelRanks(c)).containsExactly(t1.channelRanks(c));
        }
        // Every channel is a permutation of the node's ranks.
        for (int c = 0; c < r1.nChannels(); c++) {
            assertThat(Arrays.stream(r1.channelRanks(c)).sorted().toArray())
                    .containsExactly(s.nodes(NodeType.GPU).stream().mapToInt(n -> n.gpuRank()).sorted().toArray());
        }
    }

    @Test
    void largeSystemsStayWithinTheStepBudget() {
        // 16 PCIe GPUs, 4 NICs, 2 sockets: many orders and relaxations to try. Pass 1 stops once the global budget is
        // spent (a search may start just before), pass 2 runs at most one search per speed.
        for (boolean nets : new boolean[] {false, true}) {
            TopoSystem s = Fixtures.system("pcie-16gpu-4nic.xml", nets, P);
            double before = s.totalLinkBandwidth();
            TopoGraph r = ring(s);
            TopoGraph t = tree(s, r.nChannels());
            long bound = GraphSearch.GLOBAL_TIMEOUT + (SpeedArrays.forSearch(nets, 80).length + 2L) * GraphSearch.TIMEOUT;
            assertThat(r.searchSteps()).isPositive().isLessThanOrEqualTo(bound);
            assertThat(t.searchSteps()).isPositive().isLessThanOrEqualTo(bound);
            assertThat(r.nChannels()).isPositive();
            assertThat(Arrays.stream(r.channelRanks(0)).sorted().toArray()).hasSize(16).doesNotHaveDuplicates();
            assertThat(s.totalLinkBandwidth()).isCloseTo(before, within(1e-6));
        }
    }

    @Test
    void unreachableGpusFallBackToOneSlowChannel() {
        // GPU1 has no link at all: no path, no ring. NCCL's fallback: one channel in index order, 0.1 GB/s over SYS.
        TopoSystem s = TopoXml.toSystem(XmlParser.parse("""
                <system version="1"><cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">
                <pci busid="0000:01:00.0" class="0x030200"><gpu dev="0" sm="80" rank="0"/></pci></cpu></system>""", "x"));
        s.createNode(NodeType.GPU, 0x99).setGpu(1, 1, 80, false);
        PathFinder.computePaths(s, P);
        TopoGraph g = ring(s);
        assertThat(g.nChannels()).isEqualTo(1);
        assertThat(g.bwIntra()).isEqualTo(0.1);
        assertThat(g.typeIntra()).isEqualTo(PathType.SYS);
        assertThat(g.channelRanks(0)).containsExactly(0, 1);
    }

    @Test
    void singleGpuRing() {
        TopoSystem s = TopoXml.toSystem(XmlParser.parse("""
                <system version="1"><cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">
                <pci busid="0000:01:00.0" class="0x030200"><gpu dev="0" sm="90" rank="0"/></pci></cpu></system>""", "x"));
        PathFinder.computePaths(s, P);
        TopoGraph g = ring(s);
        // One GPU: the ring closes on itself over a zero-hop LOC path that reserves nothing, so all 32 (maxChannels)
        // channels fit at the top sm90 speed (60) and the search stops as optimal; duplication is capped at 32.
        assertThat(g.nChannels()).isEqualTo(32);
        assertThat(g.bwIntra()).isEqualTo(60.0);
        assertThat(g.typeIntra()).isEqualTo(PathType.LOC);
    }
}
