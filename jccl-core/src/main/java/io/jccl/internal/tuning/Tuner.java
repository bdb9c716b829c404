package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.Result;

import java.util.ArrayList;
import java.util.List;

/**
 * Picks algorithm, protocol and channel count per operation, the same way for GPU and host communicators: every
 * algorithm × protocol gets a predicted time from the cost model (or the reason it is not usable), a tuner plugin may
 * edit the times and the channel limit, the fastest usable one wins (ties go to the higher NCCL id, as NCCL's
 * front-inserted list does), and the channel count follows the message size. A communicator of one rank always runs
 * Ring/Simple on one channel (a local copy).
 *
 * <p>Built once per communicator; {@link #select} may be called from the enqueuing thread (one at a time when a plugin
 * is used, as plugins need not be thread-safe). Mirrors ncclTuningCompute (src/tuning/tuning.cc).
 */
public final class Tuner implements AutoCloseable {
    private final TuningTopology topo;
    private final CostModel model;
    private final AlgoProtoFilter filter;
    private final TunerPlugin plugin;

    private Tuner(TuningTopology topo, CostModel model, AlgoProtoFilter filter, TunerPlugin plugin) {
        this.topo = topo;
        this.model = model;
        this.filter = filter;
        this.plugin = plugin;
        if (plugin != null) {
            plugin.init(topo.nRanks(), topo.nNodes());
        }
    }

    /** NCCL's GPU model with the given settings and plugin (null for none). */
    public static Tuner forGpu(TuningTopology topo, TuningParams params, TunerPlugin plugin) {
        AlgoProtoFilter filter = AlgoProtoFilter.parse(params.algo(), params.proto());
        return new Tuner(topo, new GpuCostModel(topo, TunerConstants.defaults(), filter, params), filter, plugin);
    }

    /** The host model with the given settings and plugin (null for none). */
    public static Tuner forHost(TuningTopology topo, TuningParams params, HostModelParams host, TunerPlugin plugin) {
        AlgoProtoFilter filter = AlgoProtoFilter.parse(params.algo(), params.proto());
        return new Tuner(topo, new HostCostModel(topo, host, filter), filter, plugin);
    }

    public CostModel model() {
        return model;
    }

    public TuningTopology topology() {
        return topo;
    }

    public AlgoProtoFilter filter() {
        return filter;
    }

    public TunerPlugin plugin() {
        return plugin;
    }

    /** Whether the cost model chooses among algorithms for this collective (point-to-point ones are not tuned). */
    public static boolean tuned(Collective c) {
        return AlgoProtoFilter.funcIndex(c) >= 0;
    }

    /**
     * The choice for one operation of {@code nBytes} (for AllGather and ReduceScatter: the whole gathered buffer).
     *
     * @throws JcclException INVALID_ARGUMENT for collectives that are not tuned; INVALID_USAGE when NCCL_ALGO /
     *                       NCCL_PROTO leave nothing usable; INTERNAL_ERROR when nothing is usable otherwise
     */
    public Selection select(Collective coll, long nBytes, int numPipeOps) {
        int f = AlgoProtoFilter.funcIndex(coll);
        if (f < 0) {
            throw new JcclException(Result.INVALID_ARGUMENT, coll.ncclName() + " is not chosen by the cost model"
                    + " (point-to-point operations run on the p2p channels)");
        }
        if (nBytes < 0 || numPipeOps < 1) {
            throw new JcclException(Result.INVALID_ARGUMENT, "bad tuning request: nBytes=" + nBytes + " numPipeOps="
                    + numPipeOps);
        }
        ModelTable table = model.table();
        List<Candidate> candidates = new ArrayList<>();
        if (topo.nRanks() <= 1) {
            for (Algorithm a : Algorithm.values()) {
                for (Protocol p : Protocol.values()) {
                    boolean chosen = a == Algorithm.RING && p == Protocol.SIMPLE;
                    candidates.add(new Candidate(a, p, chosen ? 0 : -1, 0, 0, chosen ? null
                            : "single rank: the operation is a local copy"));
                }
            }
            return new Selection(coll, nBytes, Algorithm.RING, Protocol.SIMPLE, 1, 1, 0, filter.forced(f), candidates);
        }
        double[][] time = new double[Algorithm.COUNT][Protocol.COUNT];
        String[][] reason = new String[Algorithm.COUNT][Protocol.COUNT];
        for (Algorithm a : Algorithm.values()) {
            for (Protocol p : Protocol.values()) {
                reason[a.ordinal()][p.ordinal()] = table.disabledReason(f, a, p);
                double t = reason[a.ordinal()][p.ordinal()] == null ? model.timeUs(f, a, p, nBytes, numPipeOps) : -1;
                if (t <= 0 && reason[a.ordinal()][p.ordinal()] == null) {
                    reason[a.ordinal()][p.ordinal()] = "the model predicts no positive time";
                }
                time[a.ordinal()][p.ordinal()] = t;
            }
        }
        int maxChannels = Math.max(1, topo.commChannels());
        if (plugin != null) {
            maxChannels = consultPlugin(coll, nBytes, numPipeOps, time, reason, maxChannels);
        }
        Algorithm bestA = null;
        Protocol bestP = null;
        double best = Double.MAX_VALUE;
        for (int id = Algorithm.COUNT * Protocol.COUNT - 1; id >= 0; id--) {
            Algorithm a = Algorithm.values()[id / Protocol.COUNT];
            Protocol p = Protocol.values()[id % Protocol.COUNT];
            double t = time[a.ordinal()][p.ordinal()];
            if (reason[a.ordinal()][p.ordinal()] == null && t > 0 && t < best) {
                best = t;
                bestA = a;
                bestP = p;
            }
        }
        for (Algorithm a : Algorithm.values()) {
            for (Protocol p : Protocol.values()) {
                String why = reason[a.ordinal()][p.ordinal()];
                candidates.add(new Candidate(a, p, why == null ? time[a.ordinal()][p.ordinal()] : -1,
                        table.latUs(f, a, p), table.bwGBps(f, a, p), why));
            }
        }
        if (bestA == null) {
            String msg = "No algorithm/protocol available for function " + coll.ncclName() + " of " + nBytes + " bytes"
                    + (filter.algoString() != null ? "; NCCL_ALGO was set to \"" + filter.algoString() + "\"" : "")
                    + (filter.protoString() != null ? "; NCCL_PROTO was set to \"" + filter.protoString() + "\"" : "");
            throw new JcclException(filter.anySet() ? Result.INVALID_USAGE : Result.INTERNAL_ERROR,
                    msg + (filter.anySet() ? "; relax those settings" : "; please report this with the topology"));
        }
        CostModel.ChannelChoice ch = model.channels(bestA, bestP, nBytes, maxChannels);
        return new Selection(coll, nBytes, bestA, bestP, ch.nChannels(), ch.nThreads(), best, filter.forced(f),
                candidates);
    }

    private int consultPlugin(Collective coll, long nBytes, int numPipeOps, double[][] time, String[][] reason,
                              int maxChannels) {
        CostTable table = new CostTable();
        for (Algorithm a : Algorithm.values()) {
            for (Protocol p : Protocol.values()) {
                if (reason[a.ordinal()][p.ordinal()] == null) {
                    table.set(a, p, time[a.ordinal()][p.ordinal()]);
                }
            }
        }
        int newMax;
        try {
            newMax = plugin.getCollInfo(coll, nBytes, numPipeOps, table, maxChannels);
        } catch (RuntimeException e) {
            TunerPlugins.warn("tuner plugin " + plugin.name() + " failed in getCollInfo; ignoring its answer", e);
            return maxChannels;
        }
        for (Algorithm a : Algorithm.values()) {
            for (Protocol p : Protocol.values()) {
                if (reason[a.ordinal()][p.ordinal()] != null) {
                    continue;
                }
                double t = table.get(a, p);
                time[a.ordinal()][p.ordinal()] = t;
                if (t <= 0) {
                    reason[a.ordinal()][p.ordinal()] = "ruled out by tuner plugin " + plugin.name();
                }
            }
        }
        return newMax > 0 ? Math.min(newMax, maxChannels) : maxChannels;
    }

    @Override
    public void close() {
        if (plugin != null) {
            plugin.close();
        }
    }
}
