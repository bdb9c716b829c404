package io.jccl.internal.topology.discovery;

import io.jccl.internal.topology.LinkType;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.TopoSystem;
import io.jccl.internal.topology.xml.TopoXml;
import io.jccl.internal.topology.xml.XmlElement;
import io.jccl.internal.topology.xml.XmlWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class SysfsDiscoveryTest {

    /** A fake /sys and /proc: 2 NUMA nodes, a switch with a GPU and a NIC, a GPU on socket 1, virtio and virtual NICs. */
    private static void fakeHost(Path root) throws IOException {
        write(root, "sys/devices/system/node/node0/cpumap", "0000ffff");
        write(root, "sys/devices/system/node/node1/cpumap", "ffff0000");
        Files.createDirectories(root.resolve("sys/devices/system/node/possible"));
        write(root, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n\n"
                + "processor\t: 1\nvendor_id\t: Other\n");
        String sw = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
        pci(root, "sys/devices/pci0000:00/0000:00:01.0", "0x060400", "16.0 GT/s PCIe", 16, 0);
        pci(root, sw, "0x060400", "16.0 GT/s PCIe", 16, 0);
        pci(root, sw + "/0000:02:00.0", "0x060400", "16.0 GT/s PCIe", 16, 0);
        pci(root, sw + "/0000:02:00.0/0000:03:00.0", "0x030200", "32.0 GT/s PCIe", 16, 0);
        pci(root, sw + "/0000:02:01.0", "0x060400", "16.0 GT/s PCIe", 16, 0);
        pci(root, sw + "/0000:02:01.0/0000:04:00.0", "0x020700", "16.0 GT/s PCIe", 8, 0);
        pci(root, "sys/devices/pci0000:80/0000:80:01.0", "0x060400", "32.0 GT/s PCIe", 16, 1);
        pci(root, "sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0", "0x030200", "32.0 GT/s PCIe", 16, 1);
        link(root, "sys/bus/pci/devices/0000:03:00.0", sw + "/0000:02:00.0/0000:03:00.0");
        link(root, "sys/bus/pci/devices/0000:81:00.0", "sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0");
        String ib = sw + "/0000:02:01.0/0000:04:00.0/net/ib0";
        write(root, ib + "/speed", "100000");
        link(root, "sys/class/net/ib0", ib);
        String virtio = "sys/devices/pci0000:00/0000:00:05.0/virtio1/net/eth0";
        write(root, virtio + "/speed", "-1");
        link(root, "sys/class/net/eth0", virtio);
        Files.createDirectories(root.resolve("sys/devices/virtual/net/lo"));
        link(root, "sys/class/net/lo", "sys/devices/virtual/net/lo");
        Files.createDirectories(root.resolve("sys/devices/virtual/net/docker0"));
        link(root, "sys/class/net/docker0", "sys/devices/virtual/net/docker0");
    }

    private static void pci(Path root, String dir, String cls, String speed, int width, int numa) throws IOException {
        write(root, dir + "/class", cls);
        write(root, dir + "/vendor", cls.startsWith("0x03") ? "0x10de" : "0x15b3");
        write(root, dir + "/device", "0x1234");
        write(root, dir + "/max_link_speed", speed);
        write(root, dir + "/max_link_width", Integer.toString(width));
        write(root, dir + "/numa_node", Integer.toString(numa));
    }

    private static void write(Path root, String file, String content) throws IOException {
        Path p = root.resolve(file);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content + "\n");
    }

    private static void link(Path root, String from, String to) throws IOException {
        Path l = root.resolve(from);
        Files.createDirectories(l.getParent());
        Files.createSymbolicLink(l, l.getParent().relativize(root.resolve(to)));
    }

    private static final GpuProbe TWO_GPUS = () -> List.of(
            new GpuInfo("0000:03:00.0", 0, 90, true, List.of(new GpuInfo.NvLink("0000:81:00.0", 18, "0x030200"))),
            new GpuInfo("81:00.0", 1, 90, true, List.of(new GpuInfo.NvLink("0000:03:00.0", 18, "0x030200"))));

    @Test
    void discoversCpusPciTreeGpusAndNics(@TempDir Path root) throws IOException {
        fakeHost(root);
        XmlElement xml = new SysfsDiscovery(root, "amd64").discover(TWO_GPUS);
        List<XmlElement> cpus = xml.children("cpu");
        assertThat(cpus).extracting(c -> c.attr("numaid")).containsExactly("0", "1");
        assertThat(cpus.get(0).attributes()).containsEntry("affinity", "0000ffff").containsEntry("arch", "x86_64")
                .containsEntry("vendor", "AuthenticAMD").containsEntry("familyid", "25").containsEntry("modelid", "1");
        // GPU 03:00.0: its switch is two levels up (01:00.0; the downstream port 02:00.0 is skipped), under CPU 0.
        XmlElement sw = cpus.get(0).child("pci");
        assertThat(sw.attr("busid")).isEqualTo("0000:01:00.0");
        assertThat(sw.children("pci")).extracting(p -> p.attr("busid")).containsExactly("0000:03:00.0", "0000:04:00.0");
        XmlElement gpuPci = sw.children("pci").get(0);
        // max_link_speed: the slower of the device (32 GT/s) and its upstream port (16 GT/s)
        assertThat(gpuPci.attr("link_speed")).isEqualTo("16.0 GT/s PCIe");
        assertThat(gpuPci.child("gpu").attributes()).containsEntry("dev", "0").containsEntry("sm", "90")
                .containsEntry("gdr", "1").doesNotContainKey("rank");
        XmlElement nicPci = sw.children("pci").get(1);
        assertThat(nicPci.attr("link_width")).isEqualTo("8");
        assertThat(nicPci.child("nic").child("net").attributes()).containsEntry("name", "ib0")
                .containsEntry("speed", "100000").containsEntry("dev", "1"); // interfaces in name order: eth0, ib0
        // virtio NIC: not a PCI function itself -> directly under the first CPU. lo and docker0 are skipped.
        assertThat(cpus.get(0).child("nic").child("net").attributes()).containsEntry("name", "eth0")
                .containsEntry("speed", "-1").containsEntry("dev", "0");
        assertThat(xml.descendants("net")).hasSize(2);
        // GPU 81:00.0 sits right under a root port of socket 1's root complex.
        assertThat(cpus.get(1).child("pci").attr("busid")).isEqualTo("0000:81:00.0");
        assertThat(cpus.get(1).child("pci").child("gpu").child("nvlink").attr("target")).isEqualTo("0000:03:00.0");

        // The XML builds a system once ranks are given, and survives a dump/parse round trip.
        TopoXml.assignRanks(xml, 0, 2);
        TopoSystem s = TopoXml.toSystem(io.jccl.internal.topology.xml.XmlParser.parse(XmlWriter.write(xml), "dump"));
        assertThat(s.count(NodeType.GPU)).isEqualTo(2);
        assertThat(s.count(NodeType.NET)).isEqualTo(2);
        TopoNode g0 = s.node(NodeType.GPU, 0);
        assertThat(g0.linkTo(s.node(NodeType.GPU, 1), LinkType.NVL).bwGBps()).isCloseTo(370.8, org.assertj.core.api
                .Assertions.within(1e-9));
        assertThat(s.node(NodeType.CPU, 0).cpuVendor()).isEqualTo(io.jccl.internal.topology.CpuVendor.AMD);
    }

    @Test
    void anEmptyContainerStillGivesACpuOnlySystem(@TempDir Path root) {
        XmlElement xml = new SysfsDiscovery(root, "aarch64").discover(GpuProbe.none());
        assertThat(xml.children("cpu")).hasSize(1);
        assertThat(xml.child("cpu").attributes()).containsEntry("numaid", "0").containsEntry("arch", "arm64");
        TopoSystem s = TopoXml.toSystem(xml);
        assertThat(s.count(NodeType.CPU)).isEqualTo(1);
        assertThat(s.count(NodeType.GPU)).isZero();
    }

    @Test
    void gpusMissingFromSysfsHangOffTheFirstCpu(@TempDir Path root) {
        XmlElement xml = new SysfsDiscovery(root, "amd64").discover(
                () -> List.of(new GpuInfo("0000:0a:00.0", 0, 80, false, List.of())));
        assertThat(xml.child("cpu").child("pci").attr("busid")).isEqualTo("0000:0a:00.0");
        assertThat(xml.child("cpu").child("pci").child("gpu")).isNotNull();
    }

    @Test
    void topoFileWinsAndIsDumped(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("in.xml");
        Files.writeString(file, "<system version=\"1\"><cpu numaid=\"3\" arch=\"x86_64\"/></system>");
        Path dump = dir.resolve("out/dump.xml");
        TopoParams p = TopoParams.from(TopoEnv.of(Map.of("NCCL_TOPO_FILE", file.toString(),
                "NCCL_TOPO_DUMP_FILE", dump.toString())));
        XmlElement xml = TopoDiscovery.discover(p, GpuProbe.none(), dir.resolve("no-sysfs"), "amd64");
        assertThat(xml.child("cpu").attr("numaid")).isEqualTo("3");
        assertThat(Files.readString(dump)).isEqualTo("<system version=\"1\">\n  <cpu numaid=\"3\" arch=\"x86_64\"/>\n"
                + "</system>\n");
    }

    @Test
    void thisHostDiscoversWithoutFailing() {
        XmlElement xml = SysfsDiscovery.discoverHost(GpuProbe.none());
        assertThat(xml.children("cpu")).isNotEmpty();
        TopoXml.toSystem(xml);
    }
}
