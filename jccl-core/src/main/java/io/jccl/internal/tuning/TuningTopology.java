package io.jccl.internal.tuning;

import io.jccl.internal.topology.CpuArch;
import io.jccl.internal.topology.CpuVendor;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoSystem;
import io.jccl.internal.topology.search.GraphInfo;
import io.jccl.internal.topology.search.GraphPattern;
import io.jccl.internal.topology.setup.CommPlan;

/**
 * What the cost model needs to know about a communicator, all agreed across ranks: size and node count, GPU
 * generations, the CPU (for network overhead and LL caps), the merged ring and tree graph summaries and the channel
 * count.
 *
 * @param nRanks         ranks
 * @param nNodes         nodes
 * @param minLocalRanks  ranks on the least populated node
 * @param maxLocalRanks  ranks on the most populated node
 * @param minCompCap     lowest GPU compute capability (e.g. 90), 0 for CPU-only communicators
 * @param maxCompCap     highest GPU compute capability
 * @param cpuArch        CPU architecture
 * @param cpuVendor      CPU vendor
 * @param ring           merged ring graph summary
 * @param tree           merged tree graph summary
 * @param maxTreePattern largest tree pattern id over the nodes
 * @param commChannels   channels of the communicator (after doubling and NCCL_MIN/MAX_NCHANNELS)
 * @param nvlsSupport    NVLink SHARP (multicast) available; JCCL leaves it false
 * @param collNetSupport CollNet (network SHARP) available; JCCL leaves it false
 *
 * <p>Immutable.
 */
public record TuningTopology(int nRanks, int nNodes, int minLocalRanks, int maxLocalRanks, int minCompCap,
                             int maxCompCap, CpuArch cpuArch, CpuVendor cpuVendor, GraphInfo ring, GraphInfo tree,
                             GraphPattern maxTreePattern, int commChannels, boolean nvlsSupport,
                             boolean collNetSupport) {

    /** From a topology plan (the node-0 system gives GPU generations and the CPU). */
    public static TuningTopology from(CommPlan plan) {
        int minCc = Integer.MAX_VALUE;
        int maxCc = 0;
        CpuArch arch = CpuArch.UNKNOWN;
        CpuVendor vendor = CpuVendor.UNKNOWN;
        for (var node : plan.nodes()) {
            TopoSystem s = node.system();
            for (TopoNode g : s.nodes(NodeType.GPU)) {
                minCc = Math.min(minCc, g.gpuSm());
                maxCc = Math.max(maxCc, g.gpuSm());
            }
            TopoNode cpu = s.firstCpu();
            if (cpu != null) {
                arch = arch == CpuArch.UNKNOWN || arch == cpu.cpuArch() ? cpu.cpuArch() : CpuArch.MIXED;
                vendor = vendor == CpuVendor.UNKNOWN || vendor == cpu.cpuVendor() ? cpu.cpuVendor() : CpuVendor.MIXED;
            }
        }
        if (minCc == Integer.MAX_VALUE) {
            minCc = 0;
        }
        return new TuningTopology(plan.nRanks(), plan.nNodes(), plan.minLocalRanks(), plan.maxLocalRanks(), minCc,
                maxCc, arch, vendor, plan.ring(), plan.tree(), plan.maxTreePattern(), plan.channels().nChannels(),
                false, false);
    }

    /** The graph summary an algorithm's model uses (the tree graph for Tree, the ring graph otherwise). */
    public GraphInfo graph(Algorithm a) {
        return a == Algorithm.TREE ? tree : ring;
    }

    public boolean gpu() {
        return minCompCap > 0;
    }
}
