package io.jccl.internal.tuning;

import io.jccl.internal.topology.CpuArch;
import io.jccl.internal.topology.CpuVendor;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.topology.search.GraphInfo;
import io.jccl.internal.topology.search.GraphPattern;

import java.util.EnumSet;
import java.util.Set;

/**
 * Builds the tuner of a host-memory communicator from what every rank agreed at init (ranks, hosts, channels, which
 * protocols its transports carry). The host executor runs rings, and trees for allReduce (Simple protocol); a user
 * NCCL_ALGO that leaves nothing the executor has is an error from the tuner, as in NCCL.
 * Owned by: the communicator's init thread. Mirrors: the host side of ncclTopoTuneModel.
 */
public final class HostTuning {
    private HostTuning() {
    }

    /**
     * @param lineProtocols whether every peer is reached over shared memory (LL and LL128 exist only there)
     */
    public static Tuner create(int nRanks, int nNodes, int minLocal, int maxLocal, int nChannels, boolean lineProtocols,
                               TopoEnv env) {
        HostModelParams hp = HostModelParams.from(env);
        Set<Protocol> protos = lineProtocols ? EnumSet.allOf(Protocol.class) : EnumSet.of(Protocol.SIMPLE);
        hp = hp.withProtocols(protos);
        GraphInfo ring = new GraphInfo(GraphPattern.RING, nChannels, true, hp.shmBwGBps()[Protocol.SIMPLE.ordinal()],
                hp.netBwGBps()[Protocol.SIMPLE.ordinal()], PathType.LOC, nNodes > 1 ? PathType.NET : PathType.LOC, 0,
                        0);
        GraphInfo tree = new GraphInfo(GraphPattern.TREE, nChannels, true, ring.bwIntraGBps(), ring.bwInterGBps(),
                ring.typeIntra(), ring.typeInter(), 0, 0);
        TuningTopology tt = new TuningTopology(nRanks, nNodes, minLocal, maxLocal, 0, 0,
                CpuArch.parse(System.getProperty("os.arch")), CpuVendor.UNKNOWN, ring, tree, GraphPattern.TREE,
                nChannels, false, false);
        TuningParams p = TuningParams.from(env);
        return Tuner.forHost(tt, p, hp, TunerPlugins.select(p.tunerPlugin(), TunerPlugins.available(null)));
    }
}
