package io.jccl.internal.topology.discovery;

import io.jccl.internal.topology.CpuArch;
import io.jccl.internal.topology.xml.PciInfo;
import io.jccl.internal.topology.xml.XmlElement;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds the topology XML of this host from sysfs (and the GPU probe), in NCCL's schema:
 * <ul>
 *   <li>one {@code <cpu>} per {@code /sys/devices/system/node/node*} (one with numaid 0 when there are none), with the
 *   CPU mask, the architecture and the CPUID vendor/family/model from {@code /proc/cpuinfo};</li>
 *   <li>each GPU (from the probe) and each NIC of {@code /sys/class/net} (skipping loopback, virtual, docker, bridge
 * and
 *   veth interfaces) with its PCI ancestry: from a device, two path components up is its switch (the downstream port
 *   in between is skipped), until a non-PCI component, the root complex, hands over to the CPU of the device's NUMA
 *   node. Each PCI element carries class, ids and the link speed/width (the slower of the device and its upstream
 *   port);</li>
 *   <li>NICs that are not PCI devices (virtio, veth, SR-IOV in containers) hang directly off the first CPU.</li>
 * </ul>
 * Anything unreadable is skipped, so a bare container still yields a CPU-only system.
 *
 * <p>Runs once on the initialising thread; mirrors ncclTopoGetXmlFromSys / ncclTopoGetXmlFromCpu (src/graph/xml.cc).
 */
final class SysfsDiscovery {
    private final Sysfs fs;
    private final String osArch;
    private final XmlElement system = new XmlElement("system");
    private final List<XmlElement> cpus = new ArrayList<>();
    private final Map<Integer, XmlElement> cpuByNuma = new HashMap<>();
    private final Map<String, XmlElement> pciByBusId = new HashMap<>();

    /**
     * @param root   the directory holding {@code sys/} and {@code proc/} ("/" normally)
     * @param osArch the Java {@code os.arch} value
     */
    public SysfsDiscovery(Path root, String osArch) {
        this.fs = new Sysfs(root);
        this.osArch = osArch;
    }

    /** This host: "/" and the running JVM's architecture. */
    public static XmlElement discoverHost(GpuProbe probe) {
        return new SysfsDiscovery(Path.of("/"), System.getProperty("os.arch")).discover(probe);
    }

    public XmlElement discover(GpuProbe probe) {
        system.set("version", 1);
        addCpus();
        for (GpuInfo gpu : probe.gpus()) {
            addGpu(gpu);
        }
        addNics();
        return system;
    }

    private void addCpus() {
        Map<String, String> cpuinfo = cpuInfo();
        List<Integer> numaIds = new ArrayList<>();
        for (Path p : Sysfs.list(fs.path("/sys/devices/system/node"))) {
            String n = p.getFileName().toString();
            if (n.matches("node\\d+")) {
                numaIds.add(Integer.parseInt(n.substring(4)));
            }
        }
        if (numaIds.isEmpty()) {
            numaIds.add(0);
        }
        numaIds.sort(null);
        for (int id : numaIds) {
            XmlElement cpu = system.addChild("cpu");
            cpu.set("numaid", id);
            String map = Sysfs.read(fs.path("/sys/devices/system/node/node" + id + "/cpumap"));
            if (map != null) {
                cpu.set("affinity", map);
            }
            cpu.set("arch", CpuArch.parse(osArch) == CpuArch.UNKNOWN ? osArch : CpuArch.parse(osArch).xmlName());
            if (cpuinfo.containsKey("vendor_id")) {
                cpu.set("vendor", cpuinfo.get("vendor_id"));
            }
            if (cpuinfo.containsKey("cpu family")) {
                cpu.set("familyid", cpuinfo.get("cpu family"));
            }
            if (cpuinfo.containsKey("model")) {
                cpu.set("modelid", cpuinfo.get("model"));
            }
            cpus.add(cpu);
            cpuByNuma.put(id, cpu);
        }
    }

    private Map<String, String> cpuInfo() {
        Map<String, String> m = new HashMap<>();
        for (String line : Sysfs.readAll(fs.path("/proc/cpuinfo"))) {
            if (line.isBlank()) {
                break; // first processor only
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                m.putIfAbsent(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        return m;
    }

    private void addGpu(GpuInfo info) {
        String busId = PciInfo.normalize(info.busId());
        Path dev = Sysfs.real(fs.path("/sys/bus/pci/devices/" + busId));
        XmlElement pci = dev != null ? pciElement(dev) : orphanPci(busId, "0x030200");
        XmlElement gpu = pci.addChild("gpu");
        gpu.set("dev", info.dev()).set("sm", info.sm()).set("gdr", info.gdr() ? 1 : 0);
        for (GpuInfo.NvLink l : info.nvlinks()) {
            gpu.addChild("nvlink").set("target", PciInfo.normalize(l.targetBusId())).set("count", l.count())
                    .set("tclass", l.targetClass());
        }
    }

    private void addNics() {
        int dev = 0;
        for (Path iface : Sysfs.list(fs.path("/sys/class/net"))) {
            String name = iface.getFileName().toString();
            Path real = Sysfs.real(iface);
            if (name.equals("lo") || name.startsWith("docker") || name.startsWith("virbr") || name.startsWith("veth")
                    || name.startsWith("br-") || real == null || real.toString().contains("/devices/virtual/")) {
                continue;
            }
            long speed = Sysfs.readLong(iface.resolve("speed"), -1);
            // real = .../<device>/net/<name>: a PCI NIC when <device> is a PCI address; virtio and other buses
            // (".../0000:00:03.0/virtio2/net/eth0") are attached to the first CPU, as NCCL does.
            Path device = real.getParent() == null ? null : real.getParent().getParent();
            XmlElement parent = device != null && device.getFileName() != null
                    && PciInfo.isBdf(device.getFileName().toString()) ? pciElement(device) : null;
            XmlElement nic = (parent != null ? parent : cpus.get(0)).addChild("nic");
            nic.addChild("net").set("name", name).set("dev", dev++).set("latency", 0).set("speed", speed)
                    .set("port", 0).set("guid", "0x0").set("maxconn", 65536).set("gdr", 0);
        }
    }

    /** The {@code <pci>} element of a PCI device directory, creating it and its ancestors as needed. */
    private XmlElement pciElement(Path devDir) {
        String busId = PciInfo.normalize(devDir.getFileName().toString());
        XmlElement existing = pciByBusId.get(busId);
        if (existing != null) {
            return existing;
        }
        Path up2 = devDir.getParent() == null ? null : devDir.getParent().getParent();
        XmlElement parent;
        if (up2 != null && up2.getFileName() != null && PciInfo.isBdf(up2.getFileName().toString())) {
            parent = pciElement(up2);
        } else {
            long numa = Sysfs.readLong(devDir.resolve("numa_node"), -1);
            parent = cpuByNuma.getOrDefault((int) numa, cpus.get(0));
        }
        XmlElement pci = parent.addChild("pci");
        pci.set("busid", busId);
        String cls = Sysfs.read(devDir.resolve("class"));
        pci.set("class", cls == null ? "0x060400" : cls.toLowerCase(Locale.ROOT));
        for (String f : new String[] {"vendor", "device", "subsystem_vendor", "subsystem_device"}) {
            String v = Sysfs.read(devDir.resolve(f));
            if (v != null) {
                pci.set(f, v);
            }
        }
        Path upstream = devDir.getParent();
        String speed = slower(Sysfs.read(devDir.resolve("max_link_speed")),
                upstream == null ? null : Sysfs.read(upstream.resolve("max_link_speed")));
        long width = minPositive(Sysfs.readLong(devDir.resolve("max_link_width"), 0),
                upstream == null ? 0 : Sysfs.readLong(upstream.resolve("max_link_width"), 0));
        if (speed != null) {
            pci.set("link_speed", speed);
        }
        pci.set("link_width", width);
        pciByBusId.put(busId, pci);
        return pci;
    }

    private XmlElement orphanPci(String busId, String cls) {
        XmlElement pci = cpus.get(0).addChild("pci");
        pci.set("busid", busId).set("class", cls).set("link_width", 0);
        pciByBusId.put(busId, pci);
        return pci;
    }

    private static String slower(String a, String b) {
        if (a == null || a.startsWith("Unknown")) {
            return b == null || b.startsWith("Unknown") ? null : b;
        }
        if (b == null || b.startsWith("Unknown")) {
            return a;
        }
        return PciInfo.laneSpeed(a) <= PciInfo.laneSpeed(b) ? a : b;
    }

    private static long minPositive(long a, long b) {
        if (a <= 0) {
            return Math.max(b, 0);
        }
        return b <= 0 ? a : Math.min(a, b);
    }
}
