package io.jccl.cuda.internal.comm;

import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.tuning.GpuNetTuning;
import io.jccl.internal.tuning.Tuner;

/**
 * What every rank of a GPU communicator across hosts agreed on for NCCL's cost model
 * ({@link RankAgreement#agreeOnNet}): the hosts, the fewest and most ranks on one, the smallest compute capability
 * (major·10 + minor) and the slowest network link.
 *
 * <p>Owned by: immutable. Mirrors the graph and node facts ncclTopoTuneModel reads after the ranks' allGather.
 */
public record NetShape(int hosts, int minLocal, int maxLocal, int compCap, int netMbps) {
    /**
     * Bandwidth of one channel between GPUs of one host through CUDA IPC without NVLink, GB/s: NCCL's PCIe Gen4 x16
     * figure (ranks of one host across hosts run without NVLink kernels).
     */
    static final double INTRA_GBPS = 24.0;

    /** NCCL's GPU cost model of {@code nRanks} over these hosts with {@code channels} channels per connection. */
    public Tuner model(int nRanks, int channels) {
        return GpuNetTuning.create(nRanks, hosts, minLocal, maxLocal, compCap, channels, INTRA_GBPS, PathType.PHB,
                netMbps, TopoEnv.system());
    }
}
