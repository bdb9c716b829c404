package io.jccl.internal.tuning;

import io.jccl.Collective;

/**
 * The cost model of communicators whose data lives in host memory and moves over shared memory (inside a host) and
 * sockets (across hosts), with NCCL's ring and tree formulas over {@link HostModelParams}:
 * <ul>
 *   <li>Ring: latency = base + (nSteps − network steps) × shm hop + network steps × net hop; bandwidth = per-channel
 *   bandwidth (the slower of shm and net when spanning hosts) × channels × nRanks / nSteps.</li>
 *   <li>Tree (AllReduce only, Simple only): latency = base + 2 × ((ranks per host − 1) × shm hop + log2(hosts) × net
 *   hop); bandwidth = per-channel bandwidth × channels / 2. On one host the tree is a chain through every rank: its
 *   latency equals the ring's and its bandwidth is lower, so the ring wins unless NCCL_ALGO forces the tree.</li>
 *   <li>Channels: as many as the message fills with at least 32 KiB (Simple), 8 KiB (LL128) or 4 KiB (LL) each.</li>
 * </ul>
 *
 * <p>Immutable after construction.
 */
final class HostCostModel implements CostModel {
    private static final long[] MIN_BYTES_PER_CHANNEL = {4 << 10, 8 << 10, 32 << 10};

    private final ModelTable table = new ModelTable();

    public HostCostModel(TuningTopology topo, HostModelParams hp, AlgoProtoFilter filter) {
        int nRanks = topo.nRanks();
        int nNodes = topo.nNodes();
        int ppn = Math.max(1, nRanks / Math.max(1, nNodes));
        int nCh = Math.max(1, topo.commChannels());
        for (int f = 0; f < AlgoProtoFilter.FUNCS.length; f++) {
            Collective func = AlgoProtoFilter.FUNCS[f];
            for (Algorithm a : Algorithm.values()) {
                for (Protocol p : Protocol.values()) {
                    int pi = p.ordinal();
                    if (a != Algorithm.RING && a != Algorithm.TREE) {
                        table.disable(f, a, p, a.ncclName() + " is a GPU-only algorithm");
                        continue;
                    }
                    if (a == Algorithm.TREE && func != Collective.ALL_REDUCE) {
                        table.disable(f, a, p, "Tree runs AllReduce only");
                        continue;
                    }
                    if (a == Algorithm.TREE && p != Protocol.SIMPLE) {
                        table.disable(f, a, p, "the host tree runs the Simple protocol only");
                    }
                    if (!hp.protocols().contains(p)) {
                        table.disable(f, a, p, p.ncclName() + " runs over shared memory only, and some peer is reached"
                                + " over sockets");
                    }
                    String excluded = filter.exclusion(f, a, p);
                    if (excluded != null) {
                        table.disable(f, a, p, excluded);
                    }
                    double chBw = nNodes > 1 ? Math.min(hp.shmBwGBps()[pi], hp.netBwGBps()[pi]) : hp.shmBwGBps()[pi];
                    if (ppn == 1 && nNodes > 1) {
                        chBw = hp.netBwGBps()[pi];
                    }
                    double lat;
                    double bw;
                    if (a == Algorithm.RING) {
                        int nSteps = GpuCostModel.nSteps(func, nRanks);
                        int nInter = nNodes == 1 ? 0 : func == Collective.ALL_REDUCE ? 2 * (nNodes - 1) : nNodes - 1;
                        lat = hp.baseLatUs()[pi] + (nSteps - nInter) * hp.shmLatUs()[pi] + nInter * hp.netLatUs()[pi];
                        bw = nSteps > 0 ? chBw * nCh * nRanks / nSteps : 0;
                    } else {
                        lat = hp.baseLatUs()[pi] + 2 * ((ppn - 1) * hp.shmLatUs()[pi]
                                + TunerConstants.log2i(nNodes) * hp.netLatUs()[pi]);
                        bw = chBw * nCh * 0.5;
                    }
                    table.set(f, a, p, lat, bw);
                    if (bw <= 0) {
                        table.disable(f, a, p, "no bandwidth");
                    }
                }
            }
        }
    }

    @Override
    public String name() {
        return "JCCL host cost model";
    }

    @Override
    public ModelTable table() {
        return table;
    }

    @Override
    public double timeUs(int f, Algorithm a, Protocol p, long nBytes, int numPipeOps) {
        if (!table.enabled(f, a, p)) {
            return -1;
        }
        double t = CostModel.time(table.latUs(f, a, p), Math.max(1, numPipeOps), nBytes, table.bwGBps(f, a, p));
        return t > 0 ? t : -1;
    }

    @Override
    public int channelsAndThreads(Algorithm a, Protocol p, long nBytes, int maxChannels) {
        long per = MIN_BYTES_PER_CHANNEL[p.ordinal()];
        int nc = (int) Math.max(1, Math.min(maxChannels, nBytes / per));
        return (1 << 16) | nc;
    }
}
