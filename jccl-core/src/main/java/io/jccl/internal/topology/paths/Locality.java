package io.jccl.internal.topology.paths;

import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoPath;
import io.jccl.internal.topology.TopoSystem;

import java.util.Arrays;

/**
 * "Which nodes are closest" queries used by the path policy and the search: the nodes of one type best reached from a
 * node (highest bandwidth, then best path type), the NIC a GPU uses on a channel, and the GPU a NIC serves.
 *
 * <p>Stateless; mirrors ncclTopoGetLocal, ncclTopoGetLocalNet and ncclTopoGetLocalGpu (src/graph/topo.cc, search.cc).
 */
public final class Locality {
    private Locality() {
    }

    /**
     * Indices of the nodes of {@code resultType} best reached from node (type, index): highest path bandwidth, then
     * lowest path type; empty when paths are not computed. Ties are listed in index order.
     */
    public static int[] local(TopoSystem system, NodeType type, int index, NodeType resultType) {
        TopoNode node = system.node(type, index);
        if (!node.hasPaths(resultType)) {
            return new int[0];
        }
        int n = system.count(resultType);
        int[] out = new int[n];
        int count = 0;
        double maxBw = 0;
        int minType = io.jccl.internal.topology.PathType.DIS.ordinal();
        for (int i = 0; i < n; i++) {
            TopoPath p = node.pathTo(resultType, i);
            if (p.bwGBps() > maxBw || (p.bwGBps() == maxBw && p.type().ordinal() < minType)) {
                maxBw = p.bwGBps();
                minType = p.type().ordinal();
                count = 0;
            }
            if (p.bwGBps() == maxBw && p.type().ordinal() == minType) {
                out[count++] = i;
            }
        }
        return Arrays.copyOf(out, count);
    }

    /** The path type of the best nodes {@link #local} returns (DIS when none). */
    public static io.jccl.internal.topology.PathType localPathType(TopoSystem system, NodeType type, int index,
                                                                   NodeType resultType) {
        int[] l = local(system, type, index, resultType);
        return l.length == 0 ? io.jccl.internal.topology.PathType.DIS
                : system.node(type, index).pathTo(resultType, l[0]).type();
    }

    /**
     * The NET index GPU g uses on channel c: among its closest NICs, the one picked by its CUDA device number (bits
     * mirrored when the NIC count is a power of two, so neighbours land on distant NICs), shifted by the channel when
     * there are more NICs than GPUs sharing them. -1 when the GPU reaches no NIC.
     */
    public static int localNet(TopoSystem system, int g, int channel) {
        int[] nets = local(system, NodeType.GPU, g, NodeType.NET);
        if (nets.length == 0) {
            return -1;
        }
        int[] gpus = local(system, NodeType.NET, nets[0], NodeType.GPU);
        int net = system.node(NodeType.GPU, g).gpuDev();
        if (Integer.bitCount(nets.length) == 1) {
            net = mirrorBits(net, nets.length);
        }
        int per = Math.max(1, (nets.length + Math.max(1, gpus.length) - 1) / Math.max(1, gpus.length));
        net += channel % per;
        return nets[Math.floorMod(net, nets.length)];
    }

    /** The GPU that NET n serves: the first of its closest GPUs that picks n on some channel; -1 when none. */
    public static int localGpu(TopoSystem system, int n) {
        int[] gpus = local(system, NodeType.NET, n, NodeType.GPU);
        for (int c = 0; c < io.jccl.internal.topology.TopoConstants.MAXCHANNELS; c++) {
            for (int g : gpus) {
                if (localNet(system, g, c) == n) {
                    return g;
                }
            }
        }
        return -1;
    }

    /** Reverses the low log2(pow2) bits of val (higher bits are dropped). */
    static int mirrorBits(int val, int pow2) {
        int mirror = 0;
        for (int b = 1, mb = pow2 >> 1; b < pow2; b <<= 1, mb >>= 1) {
            if ((val & b) != 0) {
                mirror |= mb;
            }
        }
        return mirror;
    }
}
