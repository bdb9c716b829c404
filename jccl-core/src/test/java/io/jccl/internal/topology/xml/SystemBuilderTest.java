package io.jccl.internal.topology.xml;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.CpuModel;
import io.jccl.internal.topology.Fixtures;
import io.jccl.internal.topology.LinkType;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.TopoLink;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoSystem;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class SystemBuilderTest {

    @Test
    void dgxNodeCountsAndLinkBandwidths() {
        TopoSystem s = TopoXml.toSystem(Fixtures.xml(Fixtures.DGX_H100));
        assertThat(s.count(NodeType.GPU)).isEqualTo(8);
        assertThat(s.count(NodeType.NVS)).isEqualTo(1); // all NVSwitches are one NVS node, as in NCCL
        assertThat(s.count(NodeType.CPU)).isEqualTo(2);
        assertThat(s.count(NodeType.PCI)).isEqualTo(8);
        assertThat(s.count(NodeType.NIC)).isEqualTo(8);
        assertThat(s.count(NodeType.NET)).isEqualTo(8);
        TopoNode gpu0 = s.node(NodeType.GPU, 0);
        TopoNode nvs = s.node(NodeType.NVS, 0);
        // 4 <nvlink> elements (5+4+4+5 links) to the same NVS node add up: 18 x 20.6 (SM90) = 370.8 GB/s.
        assertThat(gpu0.linkTo(nvs, LinkType.NVL).bwGBps()).isCloseTo(370.8, within(1e-9));
        assertThat(nvs.linkTo(gpu0, LinkType.NVL).bwGBps()).isCloseTo(370.8, within(1e-9));
        // PCIe Gen5 x16: 16 lanes x 240 (100 Mb/s units) / 80 = 48 GB/s.
        TopoLink up = gpu0.links().stream().filter(l -> l.type() == LinkType.PCI).findFirst().orElseThrow();
        assertThat(up.bwGBps()).isEqualTo(48.0);
        // 400 Gb/s NIC: 400000 Mb/s / 8000 = 50 GB/s.
        assertThat(s.node(NodeType.NET, 0).netBwGBps()).isEqualTo(50.0);
        assertThat(s.node(NodeType.NET, 0).netName()).isEqualTo("mlx5_0");
        assertThat(s.node(NodeType.NET, 3).netAsic()).isEqualTo(0xa088c20300e0c003L);
        // Sapphire Rapids (family 6, model 143 >= 0x8F): 22 GB/s between the sockets.
        TopoNode cpu0 = s.node(NodeType.CPU, 0);
        assertThat(cpu0.cpuModel()).isEqualTo(CpuModel.INTEL_SRP);
        assertThat(cpu0.linkTo(s.node(NodeType.CPU, 1), LinkType.SYS).bwGBps()).isEqualTo(22.0);
        assertThat(gpu0.gpuRank()).isZero();
        assertThat(gpu0.gpuSm()).isEqualTo(90);
        assertThat(gpu0.label()).isEqualTo("GPU/0-18000");
    }

    @Test
    void linksAreSortedByBandwidthWithTheUpLinkLast() {
        TopoSystem s = TopoXml.toSystem(Fixtures.xml(Fixtures.DGX_H100));
        TopoNode gpu0 = s.node(NodeType.GPU, 0);
        assertThat(gpu0.links().get(0).type()).isEqualTo(LinkType.NVL);
        TopoNode sw = s.node(NodeType.PCI, 0);
        // Down-links (GPU, NIC) first, the link up to the CPU last.
        assertThat(sw.links().get(sw.links().size() - 1).remNode().type()).isEqualTo(NodeType.CPU);
        for (TopoNode n : s.nodes(NodeType.CPU)) {
            for (int i = 1; i < n.links().size(); i++) {
                assertThat(n.links().get(i - 1).bwGBps()).isGreaterThanOrEqualTo(n.links().get(i).bwGBps());
            }
        }
    }

    @Test
    void ncclOwnDumpBuilds() {
        TopoSystem s = TopoXml.toSystem(Fixtures.xml(Fixtures.NCCL_2XH200));
        assertThat(s.count(NodeType.GPU)).isEqualTo(2);
        assertThat(s.count(NodeType.NVS)).isEqualTo(1);
        TopoNode cpu = s.node(NodeType.CPU, 0);
        assertThat(cpu.cpuNumaId()).isEqualTo(-1);
        // link_width="0" counts as 16 lanes: 16 x 240 / 80 = 48 GB/s, as NCCL printed (PCI[48.0]).
        assertThat(s.node(NodeType.GPU, 0).linkTo(cpu, LinkType.PCI).bwGBps()).isEqualTo(48.0);
        // A NIC directly under the CPU: LOC_BW PCI link; speed 10000 Mb/s = 1.25 GB/s (NCCL printed NET[1.2]).
        TopoNode nic = s.node(NodeType.NIC, 0);
        assertThat(cpu.linkTo(nic, LinkType.PCI).bwGBps()).isEqualTo(5000.0);
        assertThat(s.node(NodeType.NET, 0).netBwGBps()).isEqualTo(1.25);
        assertThat(s.node(NodeType.GPU, 0).label()).isEqualTo("GPU/0-60");
        assertThat(s.node(NodeType.GPU, 1).label()).isEqualTo("GPU/0-70");
    }

    @Test
    void gpusWithoutRankAreNotPartOfTheSystem() {
        XmlElement xml = Fixtures.xml(Fixtures.PCIE_2SOCKET);
        TopoXml.assignRanks(xml, 10, 2);
        TopoSystem s = TopoXml.toSystem(xml);
        assertThat(s.count(NodeType.GPU)).isEqualTo(2);
        assertThat(s.nodes(NodeType.GPU)).extracting(TopoNode::gpuRank).containsExactly(10, 11);
        assertThat(s.nodes(NodeType.GPU)).extracting(TopoNode::gpuDev).containsExactly(0, 1);
    }

    @Test
    void unknownSpeedAndNegativeNicSpeedFallBack() {
        XmlElement xml = XmlParser.parse("""
                <system version="1"><cpu numaid="0" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="1">
                  <pci busid="0000:01:00.0" class="0x030000" link_speed="Unknown"><gpu dev="0" sm="80" rank="0" gdr="0"/></pci>
                  <nic><net name="eth0" dev="0" speed="-1"/></nic>
                </cpu></system>""", "t");
        TopoSystem s = TopoXml.toSystem(xml);
        TopoNode gpu = s.node(NodeType.GPU, 0);
        // Unknown speed: Gen3 per lane (60), missing width: 16 lanes -> 12 GB/s.
        assertThat(gpu.linkTo(s.node(NodeType.CPU, 0), LinkType.PCI).bwGBps()).isEqualTo(12.0);
        // Speed -1: 10000 Mb/s -> 1.25 GB/s.
        assertThat(s.node(NodeType.NET, 0).netBwGBps()).isEqualTo(1.25);
        assertThat(s.node(NodeType.CPU, 0).cpuModel()).isEqualTo(CpuModel.AMD_ZEN34);
    }

    @Test
    void broadcomGen4InnerSwitchLevelIsFlattened() {
        String bcm = "vendor=\"0x1000\" device=\"0xc010\"";
        XmlElement xml = XmlParser.parse("<system version=\"1\"><cpu numaid=\"0\" arch=\"x86_64\" vendor=\"GenuineIntel\""
                + " familyid=\"6\" modelid=\"85\"><pci busid=\"0000:01:00.0\" class=\"0x060400\" " + bcm + ">"
                + "<pci busid=\"0000:02:00.0\" class=\"0x060400\" " + bcm + "><pci busid=\"0000:03:00.0\" class=\"0x030200\">"
                + "<gpu dev=\"0\" sm=\"80\" rank=\"0\"/></pci></pci>"
                + "<pci busid=\"0000:04:00.0\" class=\"0x060400\" " + bcm + "><pci busid=\"0000:05:00.0\" class=\"0x030200\">"
                + "<gpu dev=\"1\" sm=\"80\" rank=\"1\"/></pci></pci>"
                + "</pci></cpu></system>", "bcm");
        TopoSystem s = TopoXml.toSystem(xml);
        // Only the outer switch remains; both GPUs hang off it, so they are one switch apart (PIX).
        assertThat(s.count(NodeType.PCI)).isEqualTo(1);
        assertThat(s.node(NodeType.GPU, 0).links().get(0).remNode()).isSameAs(s.node(NodeType.PCI, 0));
        assertThat(s.node(NodeType.GPU, 1).links().get(0).remNode()).isSameAs(s.node(NodeType.PCI, 0));
    }

    @Test
    void schemaErrorsNameTheElementAndLine() {
        XmlElement noBus = XmlParser.parse("<system version=\"1\">\n<cpu numaid=\"0\">\n<pci class=\"0x060400\"/>\n"
                + "</cpu>\n</system>", "s.xml");
        assertThatThrownBy(() -> TopoXml.toSystem(noBus)).isInstanceOfSatisfying(JcclException.class, e -> {
            assertThat(e.result()).isEqualTo(Result.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains("s.xml:3 <pci>").contains("missing attribute 'busid'");
        });
        XmlElement badNum = XmlParser.parse("<system version=\"1\"><cpu numaid=\"zero\"/></system>", "n.xml");
        assertThatThrownBy(() -> TopoXml.toSystem(badNum)).hasMessageContaining("numaid=\"zero\" is not an integer");
        XmlElement version = XmlParser.parse("<system version=\"2\"/>", "v.xml");
        assertThatThrownBy(() -> TopoXml.toSystem(version)).hasMessageContaining("version 2 is not supported");
        XmlElement root = XmlParser.parse("<topology/>", "r.xml");
        assertThatThrownBy(() -> TopoXml.toSystem(root)).hasMessageContaining("must be <system>");
    }

    @Test
    void setGpuRankMarksTheGpuByBusId() {
        XmlElement xml = Fixtures.xml(Fixtures.PCIE_2SOCKET);
        TopoXml.assignRanks(xml, 0, 0);
        assertThat(TopoXml.setGpuRank(xml, "b1:00.0", 7)).isTrue();
        assertThat(TopoXml.setGpuRank(xml, "0000:ee:00.0", 8)).isFalse();
        TopoSystem s = TopoXml.toSystem(xml);
        assertThat(s.count(NodeType.GPU)).isEqualTo(1);
        assertThat(s.node(NodeType.GPU, 0).gpuDev()).isEqualTo(3);
        assertThat(s.node(NodeType.GPU, 0).gpuRank()).isEqualTo(7);
    }
}
