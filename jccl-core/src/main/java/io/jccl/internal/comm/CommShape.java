package io.jccl.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.HashMap;
import java.util.Map;

/**
 * What the ranks agree on after exchanging {@link PeerInfo}: hosts and local ranks, the channel count and slot
 * sizes. Every rank computes the same values from the same gathered infos, so no second exchange is needed.
 * Owned by: immutable. Mirrors: the checks and min/max merges of initTransportsRank's AllGather1/AllGather3.
 *
 * @param nNodes        distinct hosts
 * @param localRanks    ranks on this rank's host
 * @param nChannels     channels every rank uses
 * @param stepBytes     ring connector slot size
 * @param p2pStepBytes  slot size of connectors made for point-to-point work
 */
record CommShape(int nNodes, int localRanks, int nChannels, int stepBytes, int p2pStepBytes) {
    /** Most channels chosen automatically on the host path. */
    static final int AUTO_MAX_CHANNELS = 4;
    /** A rank's {@code stepBytes} when it did not set NCCL_BUFFSIZE: the communicator's shape decides. */
    static final int DEFAULT_STEP = -1;
    /**
     * Slot size across hosts when nobody set NCCL_BUFFSIZE: NCCL's 4 MiB FIFO of 8 slots (large socket messages).
     */
    static final int MULTI_HOST_STEP = (4 << 20) / 8;
    /**
     * Slot size on one host when nobody set NCCL_BUFFSIZE: a 1 MiB FIFO, so the slots a ring cycles through stay in
     * the cores' caches (with 512 KiB slots a 1-2 MiB allReduce on 2 ranks ran 20-40% slower).
     */
    static final int SINGLE_HOST_STEP = (1 << 20) / 8;

    public static CommShape decide(PeerInfo[] peers, int rank) {
        Map<Long, Integer> perHost = new HashMap<>();
        int step = Integer.MAX_VALUE;
        int p2pStep = Integer.MAX_VALUE;
        int minCh = 1;
        int maxCh = Integer.MAX_VALUE;
        for (PeerInfo p : peers) {
            if (!p.version().equals(peers[rank].version())) {
                throw new JcclException(Result.INVALID_USAGE, "rank " + p.rank() + " runs JCCL " + p.version()
                        + " but rank " + rank + " runs " + peers[rank].version() + "; all ranks need the same version");
            }
            perHost.merge(p.hostHash(), 1, Integer::sum);
            if (p.stepBytes() != DEFAULT_STEP) {
                step = Math.min(step, p.stepBytes());
            }
            p2pStep = Math.min(p2pStep, p.p2pStepBytes());
            minCh = Math.max(minCh, p.minChannels());
            if (p.maxChannels() > 0) {
                maxCh = Math.min(maxCh, p.maxChannels());
            }
        }
        if (step == Integer.MAX_VALUE) {
            step = perHost.size() == 1 ? SINGLE_HOST_STEP : MULTI_HOST_STEP;
        }
        int auto = Integer.MAX_VALUE;
        for (Map.Entry<Long, Integer> host : perHost.entrySet()) {
            int cores = PeerInfo.coresOf(peers, q -> q.hostHash() == host.getKey());
            auto = Math.min(auto, Math.max(1, cores / (2 * host.getValue())));
        }
        int ch = Math.min(auto, AUTO_MAX_CHANNELS);
        ch = Math.max(ch, minCh);
        ch = Math.min(ch, maxCh == Integer.MAX_VALUE ? 64 : maxCh);
        ch = Math.max(1, Math.min(ch, 64));
        return new CommShape(perHost.size(), perHost.get(peers[rank].hostHash()), ch, step, p2pStep);
    }
}
