package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.internal.topology.CpuArch;
import io.jccl.internal.topology.CpuVendor;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.topology.search.GraphInfo;
import io.jccl.internal.topology.search.GraphPattern;

import java.util.Locale;

/**
 * NCCL's GPU cost model for a GPU communicator whose ranks span hosts: the ring and tree graphs cross the network
 * (path type NET at the link's bandwidth) and stay on the host's GPU links inside, so the model prices every step
 * across hosts with NCCL's net latencies and bandwidths. The kernels across hosts run the ring with the Simple or
 * the LL protocol, and allReduce also on NCCL's tree with Simple; the model disables the rest with that reason, so
 * the tuner's choice is what runs (algorithm, protocol and channel count), and {@code explain} shows every
 * candidate's predicted time.
 *
 * <p>Owned by: the communicator's init thread builds it; the enqueuing thread uses it (as {@link Tuner}). Mirrors
 * ncclTopoTuneModel for a communicator over the net transport.
 */
public final class GpuNetTuning {
    /** Why the other algorithms and protocols do not run across hosts. */
    static final String NOT_ACROSS_HOSTS = "across hosts the GPU kernels run the ring with the Simple or the LL"
            + " protocol and allReduce's tree with Simple (LL128 over NET and the other trees are not implemented)";

    private GpuNetTuning() {
    }

    /**
     * @param nRanks      ranks of the communicator
     * @param nNodes      hosts they run on
     * @param minLocal    ranks on the least populated host
     * @param maxLocal    ranks on the most populated host
     * @param compCap     the GPUs' compute capability (90 for sm_90)
     * @param nChannels   channels of each connection across hosts
     * @param intraGBps   bandwidth of one channel between GPUs of one host
     * @param intraPath   the path between GPUs of one host (NVL for NVLink, else PHB)
     * @param netMbps     the link speed of the network device (the net plugin's speedMbps)
     */
    public static Tuner create(int nRanks, int nNodes, int minLocal, int maxLocal, int compCap, int nChannels,
                               double intraGBps, PathType intraPath, int netMbps, TopoEnv env) {
        // NCCL's search gives a graph that leaves the host one speed for the whole path (the NIC's share included),
        // which its model reads as bwIntra up to 2 nodes and bwInter beyond: both are the slower of the two here
        double bw = Math.min(intraGBps, Math.max(netMbps, 1) / 8000.0);
        GraphInfo ring = new GraphInfo(GraphPattern.RING, nChannels, true, bw, bw, intraPath, PathType.NET, 0, 0);
        GraphInfo tree = new GraphInfo(GraphPattern.TREE, nChannels, true, bw, bw, intraPath, PathType.NET, 0, 0);
        TuningTopology tt = new TuningTopology(nRanks, nNodes, minLocal, maxLocal, compCap, compCap,
                CpuArch.parse(System.getProperty("os.arch")), CpuVendor.UNKNOWN, ring, tree, GraphPattern.TREE,
                nChannels, false, false);
        TuningParams params = TuningParams.from(env);
        AlgoProtoFilter filter = AlgoProtoFilter.parse(params.algo(), params.proto());
        KernelSupport kernels = (func, a, p) -> (a == Algorithm.RING && p != Protocol.LL128)
                || (a == Algorithm.TREE && p == Protocol.SIMPLE && func == Collective.ALL_REDUCE) ? null
                : NOT_ACROSS_HOSTS;
        return Tuner.of(tt, new GpuCostModel(tt, TunerConstants.defaults(), filter, params, kernels), filter,
                TunerPlugins.select(params.tunerPlugin(), TunerPlugins.available(null)));
    }

    /**
     * {@code what} with the model's answer for {@code coll} of {@code modelBytes}: the Selection the planner reports,
     * its reason ending with the predicted time and the link the model priced.
     */
    public static Selection priced(Tuner t, Collective coll, long nBytes, long modelBytes, String algorithm,
                                   int channels, long chunkBytes, String why) {
        ModelChoice m = t.select(coll, modelBytes, 1);
        GraphInfo g = t.topology().ring();
        String priced = String.format(Locale.ROOT, "%s; NCCL's model over NET (%d hosts, %.2f GB/s a channel)"
                        + " predicts %s/%s x%d %.1f us", why, t.topology().nNodes(), g.bwInterGBps(),
                m.algorithm().ncclName(), m.protocol().ncclName(), m.nChannels(), m.timeUs());
        return new Selection(coll, nBytes, algorithm, m.protocol(), channels, chunkBytes, priced, m);
    }

    /** The model's predicted time of {@code coll} of {@code modelBytes}, in µs (for the init log). */
    public static double predictedUs(Tuner t, Collective coll, long modelBytes) {
        return t.select(coll, modelBytes, 1).timeUs();
    }
}
