package io.jccl.internal.topology.xml;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.CpuArch;
import io.jccl.internal.topology.CpuModel;
import io.jccl.internal.topology.CpuVendor;
import io.jccl.internal.topology.LinkType;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.TopoConstants;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoSystem;

/**
 * Turns a {@code <system>} XML tree (NCCL's schema) into a {@link TopoSystem}: CPUs, the PCI tree with GPUs and NICs,
 * NET ports, then NVLinks, C2C links, explicit PCI links, Broadcom-switch flattening, inter-CPU links and link sorting,
 * in NCCL's order. GPUs without a {@code rank} attribute are not part of the communicator and are skipped, as NCCL
 * does. Schema errors (missing bus id, bad numbers) are INVALID_ARGUMENT naming the file, line and element.
 *
 * <p>Runs once on the initialising thread; mirrors ncclTopoGetSystemFromXml and its helpers (src/graph/topo.cc).
 */
public final class SystemBuilder {
    /** Broadcom PEX Gen4 switches appear as two PCI levels; NCCL flattens them. */
    private static final long BCM_GEN4_DEVICE = (0x1000L << 48) | (0xc010L << 32);
    private static final long DEVICE_MASK = 0xffffffff00000000L;

    private final TopoSystem system = new TopoSystem();
    private final long systemId;

    private SystemBuilder(long systemId) {
        this.systemId = systemId;
    }

    /** Builds the system of one host (system id 0). */
    public static TopoSystem build(XmlElement root) {
        return new SystemBuilder(0).run(root);
    }

    /** NCCL's node id: the system (host) index in the top 8 bits, the local id below. */
    public static long topoId(long systemId, long localId) {
        return (systemId << 56) + (localId & 0x00ffffffffffffffL);
    }

    private TopoSystem run(XmlElement root) {
        if (!root.name().equals("system")) {
            throw new JcclException(Result.INVALID_ARGUMENT, root.where()
                    + ": the root element must be <system>, found <"
                    + root.name() + ">");
        }
        int version = root.intAttr("version", 1);
        if (version != 1) {
            throw new JcclException(Result.INVALID_ARGUMENT, root.where() + ": topology XML version " + version
                    + " is not supported (expected 1)");
        }
        for (XmlElement cpu : root.children("cpu")) {
            addCpu(cpu);
        }
        for (XmlElement cpu : root.children("cpu")) {
            addNvLinks(cpu, cpu.intAttr("numaid", -1));
        }
        for (XmlElement cpu : root.children("cpu")) {
            addC2c(cpu, cpu.intAttr("numaid", -1));
        }
        addPciLinks(root);
        system.connectCpus();
        system.sortLinks();
        return system;
    }

    private void addCpu(XmlElement xmlCpu) {
        int numaId = xmlCpu.intAttr("numaid", -1);
        TopoNode cpu = system.createNode(NodeType.CPU, topoId(systemId, numaId));
        CpuArch arch = CpuArch.parse(xmlCpu.attr("arch"));
        CpuVendor vendor = arch == CpuArch.X86 ? CpuVendor.parse(xmlCpu.attr("vendor")) : CpuVendor.UNKNOWN;
        int family = xmlCpu.intAttr("familyid", 0);
        int model = xmlCpu.intAttr("modelid", 0);
        cpu.setCpu(numaId, arch, vendor, CpuModel.classify(arch, vendor, family, model));
        for (XmlElement sub : xmlCpu.children()) {
            if (sub.name().equals("pci")) {
                addPci(sub, cpu, numaId);
            } else if (sub.name().equals("nic")) {
                long id = topoId(systemId, nicLocalId(numaId, 0));
                TopoNode nic = system.find(NodeType.NIC, id);
                if (nic == null) {
                    nic = system.createNode(NodeType.NIC, id);
                    cpu.connect(nic, LinkType.PCI, TopoConstants.LOC_BW);
                    nic.connect(cpu, LinkType.PCI, TopoConstants.LOC_BW);
                }
                addNic(sub, nic);
            }
        }
    }

    /** NIC ids: the PCI bus id, with the NUMA id above it for NICs attached straight to a CPU. */
    private static long nicLocalId(int numaId, long busId) {
        return ((long) (numaId & 0xff) << 40) + busId;
    }

    private void addPci(XmlElement xmlPci, TopoNode parent, int numaId) {
        long busId = PciInfo.busIdToLong(xmlPci.required("busid"));
        NodeType type = PciInfo.typeOfClass(xmlPci.attr("class"));
        TopoNode node = null;
        XmlElement xmlGpu = xmlPci.child("gpu");
        XmlElement xmlNic = xmlPci.child("nic");
        if (xmlGpu != null) {
            if (!xmlGpu.has("rank")) {
                return; // not a GPU of this communicator
            }
            node = system.createNode(NodeType.GPU, topoId(systemId, busId));
            node.setGpu(xmlGpu.intAttr("dev", -1), xmlGpu.intAttr("rank", -1), xmlGpu.intAttr("sm", 0),
                    xmlGpu.intAttr("gdr", 0) != 0);
        } else if (xmlNic != null) {
            long id = topoId(systemId, nicLocalId(numaId, busId));
            TopoNode nic = system.find(NodeType.NIC, id);
            if (nic == null) {
                nic = system.createNode(NodeType.NIC, id);
                node = nic; // connected to the parent below
            }
            addNic(xmlNic, nic);
        } else if (type == NodeType.PCI) {
            node = system.createNode(NodeType.PCI, topoId(systemId, busId));
            long dev = (xmlPci.longAttr("vendor", 0) << 48) + (xmlPci.longAttr("device", 0) << 32)
                    + (xmlPci.longAttr("subsystem_vendor", 0) << 16) + xmlPci.longAttr("subsystem_device", 0);
            node.setPciDevice(dev);
            addPciChildren(xmlPci, node, numaId, dev);
        }
        if (node != null) {
            double bw = PciInfo.linkBwGBps(xmlPci.attr("link_speed"), xmlPci.intAttr("link_width", 0));
            node.connect(parent, LinkType.PCI, bw);
            parent.connect(node, LinkType.PCI, bw);
        }
    }

    /**
     * Adds the children of a switch. A Broadcom Gen4 switch shows up as a switch whose child switches have the same
     * device id; those inner levels are skipped (their children hang off the outer switch) so devices behind it count
     * as one switch apart (PIX, not PXB), as NCCL's ncclTopoFlattenBcmSwitches does.
     */
    private void addPciChildren(XmlElement xmlPci, TopoNode node, int numaId, long dev) {
        for (XmlElement sub : xmlPci.children("pci")) {
            long subDev = (sub.longAttr("vendor", 0) << 48) + (sub.longAttr("device", 0) << 32);
            boolean bcm = (dev & DEVICE_MASK) == BCM_GEN4_DEVICE && (subDev & DEVICE_MASK) == BCM_GEN4_DEVICE
                    && sub.child("gpu") == null && sub.child("nic") == null;
            if (bcm) {
                addPciChildren(sub, node, numaId, dev);
            } else {
                addPci(sub, node, numaId);
            }
        }
    }

    private void addNic(XmlElement xmlNic, TopoNode nic) {
        for (XmlElement xmlNet : xmlNic.children("net")) {
            int dev = xmlNet.intAttr("dev", -1);
            if (dev < 0) {
                throw new JcclException(Result.INVALID_ARGUMENT, xmlNet.where()
                        + ": missing or negative attribute 'dev'");
            }
            TopoNode net = system.createNode(NodeType.NET, topoId(systemId, dev));
            long asic = xmlNet.has("guid") ? xmlNet.longAttr("guid", dev) : dev;
            long mbps = xmlNet.longAttr("speed", 0);
            if (mbps <= 0) {
                mbps = 10000; // some NICs report -1
            }
            double bw = mbps / 8000.0;
            net.setNet(dev, xmlNet.attr("name"), bw, xmlNet.doubleAttr("latency", 0), xmlNet.intAttr("port", 0), asic,
                    xmlNet.intAttr("gdr", 0) != 0, xmlNet.intAttr("maxconn", TopoConstants.MAXCHANNELS),
                    xmlNet.intAttr("coll", 0) != 0);
            nic.connect(net, LinkType.NET, bw);
            net.connect(nic, LinkType.NET, bw);
        }
    }

    private void addNvLinks(XmlElement e, int numaId) {
        if (e.name().equals("gpu") && e.has("rank")) {
            TopoNode gpu = gpuOf(e);
            for (XmlElement nvl : e.children("nvlink")) {
                int count = nvl.intAttr("count", 0);
                if (count <= 0) {
                    continue;
                }
                NodeType targetType = PciInfo.typeOfClass(nvl.attr("tclass"));
                TopoNode remote;
                if (targetType == NodeType.NVS) {
                    remote = system.find(NodeType.NVS, topoId(systemId, 0));
                    if (remote == null) {
                        remote = system.createNode(NodeType.NVS, topoId(systemId, 0));
                    }
                } else if (targetType == NodeType.CPU) {
                    remote = system.find(NodeType.CPU, topoId(systemId, numaId));
                } else if (targetType == NodeType.GPU) {
                    remote = system.find(NodeType.GPU, topoId(systemId, PciInfo.busIdToLong(nvl.required("target"))));
                } else {
                    continue;
                }
                if (remote == null) {
                    continue; // target GPU not in this communicator
                }
                double bw = count * TopoConstants.nvlinkBwGBps(gpu.gpuSm());
                gpu.connect(remote, LinkType.NVL, bw);
                if (remote.type() != NodeType.GPU) {
                    remote.connect(gpu, LinkType.NVL, bw);
                }
            }
            return;
        }
        for (XmlElement c : e.children()) {
            addNvLinks(c, numaId);
        }
    }

    private void addC2c(XmlElement e, int numaId) {
        if (e.name().equals("gpu") && e.has("rank")) {
            TopoNode gpu = gpuOf(e);
            TopoNode cpu = system.find(NodeType.CPU, topoId(systemId, numaId));
            for (XmlElement c2c : e.children("c2c")) {
                double bw = c2c.intAttr("count", 0) * c2c.doubleAttr("bw", 0);
                if (bw > 0 && cpu != null) {
                    gpu.connect(cpu, LinkType.C2C, bw);
                    cpu.connect(gpu, LinkType.C2C, bw);
                }
            }
            return;
        }
        for (XmlElement c : e.children()) {
            addC2c(c, numaId);
        }
    }

    private TopoNode gpuOf(XmlElement xmlGpu) {
        XmlElement pci = xmlGpu.parent();
        if (pci == null || !pci.name().equals("pci")) {
            throw new JcclException(Result.INVALID_ARGUMENT, xmlGpu.where() + ": <gpu> must be inside a <pci> element");
        }
        TopoNode gpu = system.find(NodeType.GPU, topoId(systemId, PciInfo.busIdToLong(pci.required("busid"))));
        if (gpu == null) {
            throw new JcclException(Result.INTERNAL_ERROR, xmlGpu.where() + ": GPU was not created");
        }
        return gpu;
    }

    /** {@code <pcilink target=busid>} under a {@code <pci>}: a direct local link between two PCI devices. */
    private void addPciLinks(XmlElement root) {
        for (XmlElement link : root.descendants("pcilink")) {
            XmlElement pci = link.parent();
            TopoNode a = findPci(PciInfo.busIdToLong(pci.required("busid")));
            TopoNode b = findPci(PciInfo.busIdToLong(link.required("target")));
            if (a != null && b != null) {
                a.connect(b, LinkType.LOC, TopoConstants.LOC_BW);
                b.connect(a, LinkType.LOC, TopoConstants.LOC_BW);
            }
        }
    }

    private TopoNode findPci(long busId) {
        for (NodeType t : new NodeType[] {NodeType.PCI, NodeType.GPU}) {
            TopoNode n = system.find(t, topoId(systemId, busId));
            if (n != null) {
                return n;
            }
        }
        return null;
    }

}
