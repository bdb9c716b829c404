package io.jccl.internal.topology.paths;

import io.jccl.internal.topology.Fixtures;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.TopoPath;
import io.jccl.internal.topology.TopoSystem;
import io.jccl.internal.topology.xml.TopoXml;
import io.jccl.internal.topology.xml.XmlElement;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class PathFinderTest {

    private static TopoPath path(TopoSystem s, NodeType from, int i, NodeType to, int j) {
        return s.node(from, i).pathTo(to, j);
    }

    @Test
    void dgxGpuToGpuGoesThroughTheNvSwitch() {
        TopoSystem s = Fixtures.system(Fixtures.DGX_H100, true, TopoParams.defaults());
        for (int i = 0; i < 8; i++) {
            for (int j = 0; j < 8; j++) {
                TopoPath p = path(s, NodeType.GPU, i, NodeType.GPU, j);
                if (i == j) {
                    assertThat(p.type()).isEqualTo(PathType.LOC);
                    assertThat(p.hops()).isZero();
                } else {
                    // GPU -> NVS -> GPU: NVL, min(370.8, 370.8), 2 hops.
                    assertThat(p.type()).isEqualTo(PathType.NVL);
                    assertThat(p.hops()).isEqualTo(2);
                    assertThat(p.bwGBps()).isCloseTo(370.8, within(1e-9));
                }
            }
        }
    }

    @Test
    void dgxGpuToNicPaths() {
        TopoSystem s = Fixtures.system(Fixtures.DGX_H100, true, TopoParams.defaults());
        // Own NIC: GPU -> switch -> NIC -> NET: PCI, PCI (PIX), NET counts as LOC; min(48, 48, 50) = 48.
        TopoPath own = path(s, NodeType.GPU, 0, NodeType.NET, 0);
        assertThat(own.type()).isEqualTo(PathType.PIX);
        assertThat(own.hops()).isEqualTo(3);
        assertThat(own.bwGBps()).isEqualTo(48.0);
        // Another GPU's NIC: PXN, through that NIC's GPU over NVLink (NVS hop skipped for the GDR check):
        // GPU1 -> NVS -> GPU0 -> switch -> NIC -> NET = 5 hops, bw min(370.8, 48) = 48.
        TopoPath pxn = path(s, NodeType.GPU, 1, NodeType.NET, 0);
        assertThat(pxn.type()).isEqualTo(PathType.PXN);
        assertThat(pxn.hops()).isEqualTo(5);
        assertThat(pxn.bwGBps()).isEqualTo(48.0);
        // The reverse direction is not rerouted: NET0 -> GPU1 goes through CPU0 (PHB) ...
        assertThat(path(s, NodeType.NET, 0, NodeType.GPU, 1).type()).isEqualTo(PathType.PHB);
        // ... and NET0 -> GPU4 crosses the sockets: SYS, limited by the 22 GB/s inter-socket link.
        TopoPath sys = path(s, NodeType.NET, 0, NodeType.GPU, 4);
        assertThat(sys.type()).isEqualTo(PathType.SYS);
        assertThat(sys.bwGBps()).isEqualTo(22.0);
        assertThat(s.node(NodeType.NET, 5).netLocalGpu()).isEqualTo(5);
        assertThat(P2pPolicy.gdrAllowed(s, 1, 0, TopoParams.defaults())).isTrue();
    }

    @Test
    void pxnDisabledKeepsThePhbPath() {
        TopoSystem s = Fixtures.system(Fixtures.DGX_H100, true, TopoParams.defaults().withPxnDisable(true));
        TopoPath p = path(s, NodeType.GPU, 1, NodeType.NET, 0);
        // GPU1 -> switch -> CPU0 -> switch -> NIC -> NET: through the host bridge, PHB, 5 hops, 48 GB/s.
        assertThat(p.type()).isEqualTo(PathType.PHB);
        assertThat(p.hops()).isEqualTo(5);
    }

    @Test
    void pcieBoxTypesAndP2pLevels() {
        TopoSystem s = Fixtures.system(Fixtures.PCIE_2SOCKET, true, TopoParams.defaults());
        // Same switch: GPU -> PCI -> GPU, PIX, 12 GB/s (Gen3 x16).
        TopoPath p01 = path(s, NodeType.GPU, 0, NodeType.GPU, 1);
        assertThat(p01.type()).isEqualTo(PathType.PIX);
        assertThat(p01.bwGBps()).isEqualTo(12.0);
        assertThat(p01.hops()).isEqualTo(2);
        // Other socket: GPU -> sw -> CPU0 -> CPU1 -> sw -> GPU: SYS, limited by the 10 GB/s Skylake UPI link.
        // Not P2P (SYS > PXB), so it is routed through GPU2's CPU; same links, same result.
        TopoPath p02 = path(s, NodeType.GPU, 0, NodeType.GPU, 2);
        assertThat(p02.type()).isEqualTo(PathType.SYS);
        assertThat(p02.bwGBps()).isEqualTo(10.0);
        assertThat(p02.hops()).isEqualTo(5);
        assertThat(P2pPolicy.p2pAllowed(s, 0, 1, TopoParams.defaults())).isTrue();
        assertThat(P2pPolicy.p2pAllowed(s, 0, 2, TopoParams.defaults())).isFalse();
        assertThat(P2pPolicy.p2pAllowed(s, 0, 2, TopoParams.defaults().withP2pLevel(PathType.SYS))).isTrue();
        // GPU0 shares the NIC's switch: PIX and GDR allowed; GPU2 is across the sockets: SYS, no GDR -> via its CPU.
        assertThat(path(s, NodeType.GPU, 0, NodeType.NET, 0).type()).isEqualTo(PathType.PIX);
        assertThat(path(s, NodeType.GPU, 2, NodeType.NET, 0).type()).isEqualTo(PathType.SYS);
    }

    @Test
    void p2pDisableRoutesEvenNeighboursThroughTheCpu() {
        TopoParams params = TopoParams.from(TopoEnv.of(Map.of("NCCL_P2P_DISABLE", "1")));
        assertThat(params.p2pLevel()).isEqualTo(PathType.LOC);
        TopoSystem s = Fixtures.system(Fixtures.PCIE_2SOCKET, false, params);
        // GPU0 -> sw -> CPU0 -> sw -> GPU1: PHB, 4 hops.
        TopoPath p = path(s, NodeType.GPU, 0, NodeType.GPU, 1);
        assertThat(p.type()).isEqualTo(PathType.PHB);
        assertThat(p.hops()).isEqualTo(4);
        assertThat(p.links().get(1).remNode().type()).isEqualTo(NodeType.CPU);
    }

    @Test
    void p2pLevelEnvironmentGrammar() {
        assertThat(TopoParams.from(TopoEnv.of(Map.of("NCCL_P2P_LEVEL", "nvl"))).p2pLevel()).isEqualTo(PathType.NVL);
        assertThat(TopoParams.from(TopoEnv.of(Map.of("NCCL_P2P_LEVEL", "3"))).p2pLevel()).isEqualTo(PathType.PHB);
        assertThat(TopoParams.from(TopoEnv.of(Map.of("NCCL_P2P_LEVEL", "9"))).p2pLevel()).isEqualTo(PathType.SYS);
        assertThat(TopoParams.from(TopoEnv.of(Map.of("NCCL_NET_GDR_LEVEL", "PHB"))).gdrLevel())
                .isEqualTo(PathType.PHB);
    }

    @Test
    void twoGpuNodePxnAndGdr() {
        TopoSystem s = Fixtures.system(Fixtures.TWO_GPU_NIC_NODE, true, TopoParams.defaults());
        // GPU0 is on the NIC's switch: PIX, 3 hops, min(24, 24, 12.5) = 12.5.
        TopoPath g0 = path(s, NodeType.GPU, 0, NodeType.NET, 0);
        assertThat(g0.type()).isEqualTo(PathType.PIX);
        assertThat(g0.bwGBps()).isEqualTo(12.5);
        // GPU1 would cross the CPU (PHB, 5 hops); PXN through GPU0 over NV12 is better: 1 + 3 hops.
        TopoPath g1 = path(s, NodeType.GPU, 1, NodeType.NET, 0);
        assertThat(g1.type()).isEqualTo(PathType.PXN);
        assertThat(g1.hops()).isEqualTo(4);
        assertThat(g1.links().get(0).remNode()).isSameAs(s.node(NodeType.GPU, 0));
        assertThat(path(s, NodeType.NET, 0, NodeType.GPU, 1).type()).isEqualTo(PathType.PHB);
        // Direct NVLink: one hop, 12 x 20 GB/s (SM80).
        assertThat(path(s, NodeType.GPU, 0, NodeType.GPU, 1).bwGBps()).isEqualTo(240.0);
        assertThat(path(s, NodeType.GPU, 0, NodeType.GPU, 1).hops()).isEqualTo(1);
    }

    @Test
    void noGdrStagesThroughTheCpu() {
        XmlElement xml = Fixtures.xml(Fixtures.TWO_GPU_NIC_NODE);
        xml.descendants("net").get(0).set("gdr", 0);
        TopoSystem s = TopoXml.toSystem(xml);
        PathFinder.computePaths(s, TopoParams.defaults());
        // GPU0 -> sw -> CPU -> sw -> NIC -> NET: PHB both ways.
        TopoPath p = path(s, NodeType.GPU, 0, NodeType.NET, 0);
        assertThat(p.type()).isEqualTo(PathType.PHB);
        assertThat(p.links().get(1).remNode().type()).isEqualTo(NodeType.CPU);
        assertThat(path(s, NodeType.NET, 0, NodeType.GPU, 0).type()).isEqualTo(PathType.PHB);
    }

    @Test
    void nvbThroughAnIntermediateGpu() {
        // GPU0 - GPU1 - GPU2 in an NVLink chain: 0 -> 2 goes through GPU1 as NVB; with NCCL_NVB_DISABLE it goes
        // over PCIe instead.
        String xml = """
                <system version="1"><cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">
                <pci busid="0000:01:00.0" class="0x030200" link_speed="16 GT/s" link_width="16"><gpu dev="0" sm="80" rank="0">
                  <nvlink target="0000:02:00.0" count="4" tclass="0x030200"/></gpu></pci>
                <pci busid="0000:02:00.0" class="0x030200" link_speed="16 GT/s" link_width="16"><gpu dev="1" sm="80" rank="1">
                  <nvlink target="0000:01:00.0" count="4" tclass="0x030200"/><nvlink target="0000:03:00.0" count="4" tclass="0x030200"/></gpu></pci>
                <pci busid="0000:03:00.0" class="0x030200" link_speed="16 GT/s" link_width="16"><gpu dev="2" sm="80" rank="2">
                  <nvlink target="0000:02:00.0" count="4" tclass="0x030200"/></gpu></pci>
                </cpu></system>""";
        TopoSystem s = TopoXml.toSystem(io.jccl.internal.topology.xml.XmlParser.parse(xml, "chain"));
        PathFinder.computePaths(s, TopoParams.defaults());
        TopoPath p = path(s, NodeType.GPU, 0, NodeType.GPU, 2);
        assertThat(p.type()).isEqualTo(PathType.NVB);
        assertThat(p.bwGBps()).isEqualTo(80.0);
        assertThat(P2pPolicy.intermediateGpu(s, 0, 2)).isEqualTo(1);
        TopoParams noNvb = TopoParams.from(TopoEnv.of(Map.of("NCCL_NVB_DISABLE", "1")));
        PathFinder.computePaths(s, noNvb);
        TopoPath q = path(s, NodeType.GPU, 0, NodeType.GPU, 2);
        assertThat(q.type()).isEqualTo(PathType.PHB);
        assertThat(q.bwGBps()).isEqualTo(24.0);
    }

    @Test
    void everyPathIsBoundedByItsLinks() {
        for (String f : new String[] {Fixtures.DGX_H100, Fixtures.PCIE_2SOCKET, Fixtures.TWO_GPU_NIC_NODE}) {
            TopoSystem s = Fixtures.system(f, true, TopoParams.defaults());
            for (NodeType from : NodeType.values()) {
                for (TopoNode n : s.nodes(from)) {
                    for (NodeType to : new NodeType[] {NodeType.GPU, NodeType.NET, NodeType.CPU}) {
                        for (int j = 0; j < s.count(to); j++) {
                            TopoPath p = n.pathTo(to, j);
                            if (p.type() == PathType.DIS || p.hops() == 0) {
                                continue;
                            }
                            double min = p.links().stream().mapToDouble(l -> l.bwGBps()).min().orElseThrow();
                            assertThat(p.bwGBps()).as("%s -> %s/%d in %s", n, to, j, f).isEqualTo(min);
                            assertThat(p.links().get(p.hops() - 1).remNode()).isSameAs(s.node(to, j));
                        }
                    }
                }
            }
        }
    }
}
