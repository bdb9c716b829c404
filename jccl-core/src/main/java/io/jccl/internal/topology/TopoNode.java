package io.jccl.internal.topology;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A vertex of the topology graph: a GPU, PCI switch, NVSwitch, CPU (NUMA domain), NIC or network port. Attributes of
 * the other kinds keep their defaults (-1, 0, null). Links are kept sorted by bandwidth, highest first (then PCI
 * up-links last, see {@link TopoSystem#sortLinks()}), which fixes the order of the path search.
 *
 * <p>Owned by the thread that builds and searches the topology (init only); mirrors NCCL's {@code ncclTopoNode}.
 */
public final class TopoNode {
    private final NodeType type;
    private final long id;
    private final List<TopoLink> links = new ArrayList<>();
    /** paths[t][i] = path from this node to node i of type t; null when not computed. */
    private final TopoPath[][] paths = new TopoPath[NodeType.COUNT][];

    // GPU
    int gpuDev = -1;
    int gpuRank = -1;
    int gpuSm = -1;
    boolean gpuGdr;
    // NET
    int netDev = -1;
    String netName;
    double netBwGBps;
    double netLatencyUs;
    int netPort;
    long netAsic;
    boolean netGdr;
    int netMaxChannels = TopoConstants.MAXCHANNELS;
    boolean netCollSupport;
    int netLocalGpu = -1;
    // CPU
    int cpuNumaId = -1;
    CpuArch cpuArch = CpuArch.UNKNOWN;
    CpuVendor cpuVendor = CpuVendor.UNKNOWN;
    CpuModel cpuModel = CpuModel.UNKNOWN;
    // PCI
    long pciDevice;
    /** Search state: bit c set when this GPU is used by channel c. */
    long usedMask;

    TopoNode(NodeType type, long id) {
        this.type = type;
        this.id = id;
    }

    public NodeType type() {
        return type;
    }

    public long id() {
        return id;
    }

    public String label() {
        return TopoFormat.nodeLabel(type, id);
    }

    public List<TopoLink> links() {
        return Collections.unmodifiableList(links);
    }

    List<TopoLink> mutableLinks() {
        return links;
    }

    /**
     * Adds a directed link to {@code rem}; a link of the same type to the same node gets the bandwidth added (four
     * NVLinks of 25 GB/s make one link of 100 GB/s). Links stay sorted by bandwidth, highest first (stable).
     */
    public void connect(TopoNode rem, LinkType linkType, double bwGBps) {
        TopoLink link = null;
        for (TopoLink l : links) {
            if (l.remNode() == rem && l.type() == linkType) {
                link = l;
                break;
            }
        }
        if (link == null) {
            if (links.size() >= TopoConstants.MAX_LINKS) {
                throw new JcclException(Result.INTERNAL_ERROR, "too many topology links from " + label()
                        + " (max " + TopoConstants.MAX_LINKS + ")");
            }
            link = new TopoLink(linkType, rem, bwGBps);
            links.add(link);
        } else {
            link.addBw(bwGBps);
        }
        // Move the new or grown link up to keep bandwidth order; stop at the first link at least as fast.
        int i = links.indexOf(link);
        while (i > 0 && links.get(i - 1).bwGBps() < link.bwGBps()) {
            Collections.swap(links, i - 1, i);
            i--;
        }
    }

    /** The link from this node to {@code rem} of the given type, or null. */
    public TopoLink linkTo(TopoNode rem, LinkType linkType) {
        for (TopoLink l : links) {
            if (l.remNode() == rem && l.type() == linkType) {
                return l;
            }
        }
        return null;
    }

    void removeLinksTo(TopoNode rem) {
        links.removeIf(l -> l.remNode() == rem);
    }

    /** Path from this node to node {@code index} of type {@code t}; DISCONNECTED when paths to t are not computed. */
    public TopoPath pathTo(NodeType t, int index) {
        TopoPath[] p = paths[t.ordinal()];
        if (p == null || index < 0 || index >= p.length || p[index] == null) {
            return TopoPath.DISCONNECTED;
        }
        return p[index];
    }

    public boolean hasPaths(NodeType t) {
        return paths[t.ordinal()] != null;
    }

    /** Allocates the path array towards nodes of type t (all DISCONNECTED) unless it exists with that size. */
    public void ensurePaths(NodeType t, int countOfType) {
        TopoPath[] p = paths[t.ordinal()];
        if (p == null || p.length != countOfType) {
            TopoPath[] n = new TopoPath[countOfType];
            java.util.Arrays.fill(n, TopoPath.DISCONNECTED);
            paths[t.ordinal()] = n;
        }
    }

    /** Used by the path computation: sets (allocating on first use) the path to node index of type t. */
    public void setPath(NodeType t, int index, int countOfType, TopoPath path) {
        ensurePaths(t, countOfType);
        paths[t.ordinal()][index] = path;
    }

    void clearPaths() {
        java.util.Arrays.fill(paths, null);
    }

    // ---- GPU attributes
    public int gpuDev() {
        return gpuDev;
    }

    public int gpuRank() {
        return gpuRank;
    }

    public int gpuSm() {
        return gpuSm;
    }

    public boolean gpuGdr() {
        return gpuGdr;
    }

    public void setGpu(int dev, int rank, int sm, boolean gdr) {
        this.gpuDev = dev;
        this.gpuRank = rank;
        this.gpuSm = sm;
        this.gpuGdr = gdr;
    }

    /** Renumbers the GPU's rank (used when one node's search result is reused for another node). */
    public void setGpuRank(int rank) {
        this.gpuRank = rank;
    }

    // ---- NET attributes
    public int netDev() {
        return netDev;
    }

    public String netName() {
        return netName;
    }

    /** Bandwidth of the port still unreserved by the search (GB/s). */
    public double netBwGBps() {
        return netBwGBps;
    }

    public void reserveNetBw(double takeGBps) {
        netBwGBps = TopoConstants.subRound(netBwGBps, takeGBps);
    }

    public double netLatencyUs() {
        return netLatencyUs;
    }

    public int netPort() {
        return netPort;
    }

    /** Physical NIC identity (GUID): ports of one ASIC share bandwidth budgets in the search. */
    public long netAsic() {
        return netAsic;
    }

    public boolean netGdr() {
        return netGdr;
    }

    public int netMaxChannels() {
        return netMaxChannels;
    }

    public boolean netCollSupport() {
        return netCollSupport;
    }

    /** Index of the GPU closest to this NET node (-1 when none), precomputed after the paths. */
    public int netLocalGpu() {
        return netLocalGpu;
    }

    public void setNetLocalGpu(int g) {
        netLocalGpu = g;
    }

    public void setNet(int dev, String name, double bwGBps, double latencyUs, int port, long asic, boolean gdr,
                       int maxChannels, boolean collSupport) {
        this.netDev = dev;
        this.netName = name;
        this.netBwGBps = bwGBps;
        this.netLatencyUs = latencyUs;
        this.netPort = port;
        this.netAsic = asic;
        this.netGdr = gdr;
        this.netMaxChannels = maxChannels;
        this.netCollSupport = collSupport;
    }

    // ---- CPU attributes
    public int cpuNumaId() {
        return cpuNumaId;
    }

    public CpuArch cpuArch() {
        return cpuArch;
    }

    public CpuVendor cpuVendor() {
        return cpuVendor;
    }

    public CpuModel cpuModel() {
        return cpuModel;
    }

    public void setCpu(int numaId, CpuArch arch, CpuVendor vendor, CpuModel model) {
        this.cpuNumaId = numaId;
        this.cpuArch = arch;
        this.cpuVendor = vendor;
        this.cpuModel = model;
    }

    // ---- PCI attributes
    /** vendor<<48 | device<<32 | subsystem vendor<<16 | subsystem device, as NCCL packs it. */
    public long pciDevice() {
        return pciDevice;
    }

    public void setPciDevice(long device) {
        this.pciDevice = device;
    }

    // ---- search state
    public long usedMask() {
        return usedMask;
    }

    public void toggleUsed(long flag) {
        usedMask ^= flag;
    }

    @Override
    public String toString() {
        return label();
    }
}
