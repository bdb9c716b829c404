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
 * <p>Two entry points with the same decision: {@link #choose} for the enqueue path (allocates nothing; the answer is
 * packed into a long, see {@link #algorithmOf} and friends) and {@link #select}, which also lists every candidate and
 * why any was disabled (for logs and explain).
 *
 * <p>Built once per communicator; call from one thread at a time (the enqueuing thread), as plugins need not be
 * thread-safe and {@link #choose} reuses a scratch table. Mirrors ncclTuningCompute (src/tuning/tuning.cc).
 */
public final class Tuner implements AutoCloseable {
    private static final int IDS = Algorithm.COUNT * Protocol.COUNT;

    private final TuningTopology topo;
    private final CostModel model;
    private final AlgoProtoFilter filter;
    private final TunerPlugin plugin;
    private final CostTable scratch = new CostTable();
    private final int commChannels;

    private Tuner(TuningTopology topo, CostModel model, AlgoProtoFilter filter, TunerPlugin plugin) {
        this.topo = topo;
        this.model = model;
        this.filter = filter;
        this.plugin = plugin;
        this.commChannels = Math.max(1, topo.commChannels());
        if (plugin != null) {
            plugin.init(topo.nRanks(), topo.nNodes());
        }
    }

    /** NCCL's GPU model with the given settings and plugin (null for none). */
    public static Tuner forGpu(TuningTopology topo, TuningParams params, TunerPlugin plugin) {
        AlgoProtoFilter filter = AlgoProtoFilter.parse(params.algo(), params.proto());
        return new Tuner(topo, new GpuCostModel(topo, TunerConstants.defaults(), filter, params), filter, plugin);
    }

    /** A tuner over {@code model} (a GPU model restricted to what the kernels run, e.g. {@link GpuNetTuning}). */
    static Tuner of(TuningTopology topo, CostModel model, AlgoProtoFilter filter, TunerPlugin plugin) {
        return new Tuner(topo, model, filter, plugin);
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

    // ---- packed decisions: bits 0-7 algorithm, 8-15 protocol, 16-31 channels, 32-47 threads per channel

    public static Algorithm algorithmOf(long choice) {
        return Algorithm.of((int) (choice & 0xff));
    }

    public static Protocol protocolOf(long choice) {
        return Protocol.of((int) ((choice >>> 8) & 0xff));
    }

    public static int channelsOf(long choice) {
        return (int) ((choice >>> 16) & 0xffff);
    }

    public static int threadsOf(long choice) {
        return (int) ((choice >>> 32) & 0xffff);
    }

    private static long pack(Algorithm a, Protocol p, int channelsAndThreads) {
        long nc = channelsAndThreads & 0xffff;
        long nt = channelsAndThreads >>> 16;
        return a.ordinal() | ((long) p.ordinal() << 8) | (nc << 16) | (nt << 32);
    }

    /**
     * The decision for one operation, without allocating (the enqueue path).
     *
     * @return a packed choice: decode with {@link #algorithmOf}, {@link #protocolOf}, {@link #channelsOf},
     *         {@link #threadsOf}
     * @throws JcclException as {@link #select}
     */
    public long choose(Collective coll, long nBytes, int numPipeOps) {
        int f = checkedFunc(coll, nBytes, numPipeOps);
        if (topo.nRanks() <= 1) {
            return pack(Algorithm.RING, Protocol.SIMPLE, (1 << 16) | 1);
        }
        ModelTable table = model.table();
        int maxChannels = commChannels;
        boolean edited = false;
        if (plugin != null) {
            scratch.clear();
            for (int id = 0; id < IDS; id++) {
                Algorithm a = Algorithm.of(id / Protocol.COUNT);
                Protocol p = Protocol.of(id % Protocol.COUNT);
                if (table.enabled(f, a, p)) {
                    scratch.set(a, p, model.timeUs(f, a, p, nBytes, numPipeOps));
                }
            }
            int m = askPlugin(coll, nBytes, numPipeOps, scratch, maxChannels);
            edited = m > 0;
            maxChannels = edited ? m : maxChannels;
        }
        int best = -1;
        double bestTime = Double.MAX_VALUE;
        for (int id = IDS - 1; id >= 0; id--) {
            Algorithm a = Algorithm.of(id / Protocol.COUNT);
            Protocol p = Protocol.of(id % Protocol.COUNT);
            if (!table.enabled(f, a, p)) {
                continue;
            }
            double t = edited ? scratch.get(a, p) : model.timeUs(f, a, p, nBytes, numPipeOps);
            if (t > 0 && t < bestTime) {
                bestTime = t;
                best = id;
            }
        }
        if (best < 0) {
            throw nothingUsable(coll, nBytes);
        }
        Algorithm a = Algorithm.of(best / Protocol.COUNT);
        Protocol p = Protocol.of(best % Protocol.COUNT);
        return pack(a, p, model.channelsAndThreads(a, p, nBytes, maxChannels));
    }

    /**
     * The choice for one operation of {@code nBytes} (for AllGather and ReduceScatter: the whole gathered buffer),
     * with every candidate and the reason any was disabled.
     *
     * @throws JcclException INVALID_ARGUMENT for collectives that are not tuned; INVALID_USAGE when NCCL_ALGO /
     *                       NCCL_PROTO leave nothing usable; INTERNAL_ERROR when nothing is usable otherwise
     */
    public ModelChoice select(Collective coll, long nBytes, int numPipeOps) {
        int f = checkedFunc(coll, nBytes, numPipeOps);
        ModelTable table = model.table();
        List<Candidate> candidates = new ArrayList<>();
        if (topo.nRanks() <= 1) {
            for (int id = 0; id < IDS; id++) {
                Algorithm a = Algorithm.of(id / Protocol.COUNT);
                Protocol p = Protocol.of(id % Protocol.COUNT);
                boolean chosen = a == Algorithm.RING && p == Protocol.SIMPLE;
                candidates.add(new Candidate(a, p, chosen ? 0 : -1, 0, 0, chosen ? null
                        : "single rank: the operation is a local copy"));
            }
            return new ModelChoice(coll, nBytes, Algorithm.RING, Protocol.SIMPLE, 1, 1, 0, filter.forced(f),
                    candidates);
        }
        double[] time = new double[IDS];
        String[] reason = new String[IDS];
        CostTable edited = plugin == null ? null : new CostTable();
        for (int id = 0; id < IDS; id++) {
            Algorithm a = Algorithm.of(id / Protocol.COUNT);
            Protocol p = Protocol.of(id % Protocol.COUNT);
            reason[id] = table.disabledReason(f, a, p);
            time[id] = reason[id] == null ? model.timeUs(f, a, p, nBytes, numPipeOps) : -1;
            if (reason[id] == null && time[id] <= 0) {
                reason[id] = "the model predicts no positive time";
            }
            if (edited != null && reason[id] == null) {
                edited.set(a, p, time[id]);
            }
        }
        int maxChannels = commChannels;
        int pluginMax = edited == null ? -1 : askPlugin(coll, nBytes, numPipeOps, edited, maxChannels);
        if (pluginMax > 0) {
            maxChannels = pluginMax;
            for (int id = 0; id < IDS; id++) {
                if (reason[id] == null) {
                    time[id] = edited.get(Algorithm.of(id / Protocol.COUNT), Protocol.of(id % Protocol.COUNT));
                    if (time[id] <= 0) {
                        reason[id] = "ruled out by tuner plugin " + plugin.name();
                    }
                }
            }
        }
        int best = -1;
        for (int id = IDS - 1; id >= 0; id--) {
            if (reason[id] == null && (best < 0 || time[id] < time[best])) {
                best = id;
            }
        }
        for (int id = 0; id < IDS; id++) {
            Algorithm a = Algorithm.of(id / Protocol.COUNT);
            Protocol p = Protocol.of(id % Protocol.COUNT);
            candidates.add(new Candidate(a, p, reason[id] == null ? time[id] : -1, table.latUs(f, a, p),
                    table.bwGBps(f, a, p), reason[id]));
        }
        if (best < 0) {
            throw nothingUsable(coll, nBytes);
        }
        Algorithm a = Algorithm.of(best / Protocol.COUNT);
        Protocol p = Protocol.of(best % Protocol.COUNT);
        CostModel.ChannelChoice ch = model.channels(a, p, nBytes, maxChannels);
        return new ModelChoice(coll, nBytes, a, p, ch.nChannels(), ch.nThreads(), time[best], filter.forced(f),
                candidates);
    }

    private static int checkedFunc(Collective coll, long nBytes, int numPipeOps) {
        int f = AlgoProtoFilter.funcIndex(coll);
        if (f < 0) {
            throw new JcclException(Result.INVALID_ARGUMENT, coll.ncclName() + " is not chosen by the cost model"
                    + " (point-to-point operations run on the p2p channels)");
        }
        if (nBytes < 0 || numPipeOps < 1) {
            throw new JcclException(Result.INVALID_ARGUMENT, "bad tuning request: nBytes=" + nBytes + " numPipeOps="
                    + numPipeOps);
        }
        return f;
    }

    private JcclException nothingUsable(Collective coll, long nBytes) {
        String msg = "No algorithm/protocol available for function " + coll.ncclName() + " of " + nBytes + " bytes"
                + (filter.algoString() != null ? "; NCCL_ALGO was set to \"" + filter.algoString() + "\"" : "")
                + (filter.protoString() != null ? "; NCCL_PROTO was set to \"" + filter.protoString() + "\"" : "");
        return new JcclException(filter.anySet() ? Result.INVALID_USAGE : Result.INTERNAL_ERROR,
                msg + (filter.anySet() ? "; relax those settings" : "; please report this with the topology"));
    }

    /**
     * Lets the plugin edit {@code table}; returns the channel limit to use, or -1 when the plugin failed, in which
     * case its (possibly partial) edits must be ignored.
     */
    private int askPlugin(Collective coll, long nBytes, int numPipeOps, CostTable table, int maxChannels) {
        try {
            int newMax = plugin.getCollInfo(coll, nBytes, numPipeOps, table, maxChannels);
            return newMax > 0 ? Math.min(newMax, maxChannels) : maxChannels;
        } catch (RuntimeException e) {
            TunerPlugins.warn("tuner plugin " + plugin.name() + " failed in getCollInfo; ignoring its answer", e);
            return -1;
        }
    }

    @Override
    public void close() {
        if (plugin != null) {
            plugin.close();
        }
    }
}
