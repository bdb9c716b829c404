package io.jccl.cuda.internal.enqueue;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.AllReduceAlgorithm;
import io.jccl.cuda.GpuOptions;
import io.jccl.internal.tuning.Algorithm;
import io.jccl.internal.tuning.CallSelector;
import io.jccl.internal.tuning.GpuNetTuning;
import io.jccl.internal.tuning.Protocol;
import io.jccl.internal.tuning.Selection;
import io.jccl.internal.tuning.Tuner;

/**
 * Chooses the kernel and grid of one collective call from the collective, the element count and size, the
 * reduction, the number of ranks and the {@link GpuOptions}. Every rank of a communicator must launch the same
 * kernel with the same grid (the kernels' barriers and FIFO steps pair blocks across GPUs), so a plan depends only
 * on values that are the same on every rank: never on whether this rank runs in place, never on its own device.
 * Pure arithmetic, tested without a GPU; writes into a reusable {@link Plan}.
 *
 * <p>Thread: the communicator's calling thread. Plays the role of NCCL's tuning step (ncclGetAlgoInfo) with
 * thresholds measured on the target machine instead of a cost model.
 */
public final class CollPlanner implements CallSelector, AutoCloseable {
    /** Threads per block of every kernel (512, the kernels' launch bound). */
    public static final int THREADS = 512;
    /** Data bytes of one LL128 warp chunk: 4 lines of 128 bytes, 120 of them data (coll_ll128.cuh). */
    public static final long LL128_CHUNK_BYTES = 480;
    /**
     * Bytes a ring channel should have at least before another channel is added (allReduce reaches the ring only
     * above two-shot's range, where every channel is in use either way).
     */
    static final long RING_MIN_BYTES_PER_CHANNEL = 128L << 10;
    /** Bytes a point-to-point channel should have at least before another is added. */
    static final long P2P_MIN_BYTES_PER_CHANNEL = 512L << 10;
    /**
     * The LL size of every collective but the 2-rank allReduce (at most {@link GpuOptions#llMaxBytes()}): LL sends
     * twice the bytes, which only the pair allReduce's one-shot exchange has been measured to afford above this.
     */
    public static final long LL_OTHERS_MAX_BYTES = 64L << 10;
    /** Blocks of a local copy inside a p2p kernel. */
    public static final int COPY_BLOCKS = 2;

    private final GpuOptions options;
    private final int nRanks;
    private final int blockLimit;
    private final boolean peerPointers;
    private final boolean wholeLineLinks;
    /** The hosts the ranks run on: above 1 only the ring and point-to-point kernels can run (over {@link #net}). */
    private final int hosts;
    /** The transport between hosts ({@code NET/Socket}), or null on one host. */
    private final String net;
    /** NCCL's cost model over the network ({@link GpuNetTuning}) across hosts, else null: the ring's channels. */
    private final Tuner netModel;
    /**
     * Kernel flags every pull allReduce carries: its in-flight depth ({@link GpuOptions#pullUnroll()}), and the two
     * experiments, -Djccl.cuda.pullGather (two-shot gathers by remote reads) and -Djccl.cuda.fencedPublish (A/B only:
     * pointers published behind a release fence, the older publishing barrier).
     */
    private final int pullFlags;
    /** Experimental: bytes per step of a block's slice in the reads-only two-shot (chunkBytes of the PULL family). */
    static final long GATHER_STEP_BYTES = io.jccl.internal.param.InternalProperties.CUDA_GATHER_STEP_BYTES.get();

    /**
     * @param residentBlocks blocks of 512 threads that can surely run at once on every GPU of the communicator (the
     *                       smallest multiprocessor count: the co-residency bound of the cross-GPU barriers)
     * @param peerPointers   whether every rank's buffers are addressable from every GPU (one process driving all
     *                       GPUs), which the pull allReduce needs
     * @param wholeLineLinks whether every pair of the communicator's GPUs is linked by NVLink (reported as native
     *                       peer atomics), which delivers a 16-byte and a warp's 128-byte store whole: packed LL and
     *                       LL128 need it and are never chosen, or forced, without it
     */
    public CollPlanner(GpuOptions options, int nRanks, int residentBlocks, boolean peerPointers,
                       boolean wholeLineLinks) {
        this(options, nRanks, residentBlocks, peerPointers, wholeLineLinks, 1, null);
    }

    /**
     * As above, for ranks on {@code hosts} hosts joined by the transport {@code net}: with more than one, the ranks
     * of other hosts are reached through the network proxy's FIFOs (those of this host through their mapped FIFOs),
     * so no kernel that reads or writes a peer's memory directly (LL, LL128, packed LL, push, pull) is chosen or may
     * be forced; collectives run on the ring, allToAll as sends and receives, at every size.
     */
    public CollPlanner(GpuOptions options, int nRanks, int residentBlocks, boolean peerPointers,
                       boolean wholeLineLinks, int hosts, String net) {
        this(options, nRanks, residentBlocks, peerPointers, wholeLineLinks, hosts, net, null);
    }

    /**
     * As above, with NCCL's cost model over the network ({@link GpuNetTuning}, null for none): across hosts it prices
     * each ring call (its channel count is the model's, within the ring channels) and {@link #select} reports every
     * candidate's predicted time. Closed with the planner.
     */
    public CollPlanner(GpuOptions options, int nRanks, int residentBlocks, boolean peerPointers,
                       boolean wholeLineLinks, int hosts, String net, Tuner netModel) {
        this.netModel = Math.max(1, hosts) > 1 ? netModel : null;
        if (this.netModel != null) {   // NCCL_ALGO / NCCL_PROTO that leave a collective nothing fail here, at init
            try {
                for (Collective c : io.jccl.internal.tuning.AlgoProtoFilter.FUNCS) {
                    this.netModel.choose(c, 1 << 20, 1);
                }
            } catch (JcclException e) {
                this.netModel.close();
                throw new JcclException(e.result(), "across hosts: " + e.getMessage() + " (the GPU kernels run the"
                        + " ring with the Simple or the LL protocol there, and allReduce also the tree with Simple:"
                        + " NCCL_ALGO=allreduce:tree forces the tree for allReduce alone)", e);
            }
        }
        this.hosts = Math.max(1, hosts);
        this.net = this.hosts > 1 ? (net != null ? net : "NET") : null;
        if (this.hosts > 1 && (peerPointers || wholeLineLinks)) {
            throw new IllegalArgumentException("ranks on " + hosts + " hosts share no pointers and no NVLink");
        }
        this.options = options;
        this.nRanks = nRanks;
        this.blockLimit = Math.max(1, Math.min(Math.min(GpuOptions.KERNEL_MAX_BLOCKS, options.maxBlocks()),
                residentBlocks));
        this.peerPointers = peerPointers;
        this.wholeLineLinks = wholeLineLinks;
        this.pullFlags = (options.pullUnroll() == 8 ? KernelArgs.FLAG_DEEP8
                : options.pullUnroll() == 4 ? KernelArgs.FLAG_DEEP4 : 0)
                | (io.jccl.internal.param.InternalProperties.CUDA_PULL_GATHER.get() ? KernelArgs.FLAG_PULL_GATHER : 0)
                | (io.jccl.internal.param.InternalProperties.CUDA_FENCED_PUBLISH.get()
                        ? KernelArgs.FLAG_FENCED_PUBLISH : 0);
    }

    /** The LL size of every collective but the 2-rank allReduce (0 across hosts: no LL there). */
    public long llOthersMaxBytes() {
        return hosts > 1 ? 0 : Math.min(options.llMaxBytes(), LL_OTHERS_MAX_BYTES);
    }

    /**
     * The init log's line on the network pricing across hosts: NCCL's model's predicted allReduce times at 8 B,
     * 1 MiB and 128 MiB and the ring's protocol and channels there; null on one host.
     */
    public String netPricing() {
        if (netModel == null) {
            return null;
        }
        StringBuilder b = new StringBuilder("allReduce over " + net + " priced by NCCL's model:");
        for (long bytes : new long[] {8, 1 << 20, 128 << 20}) {
            Plan p = new Plan();
            ring(p, KernelFamily.RING, bytes, Collective.ALL_REDUCE);   // what such a call launches
            b.append(String.format(java.util.Locale.ROOT, " %s %.0f us (%s x%d)", sizeName(bytes),
                    GpuNetTuning.predictedUs(netModel, Collective.ALL_REDUCE, bytes),
                    (p.flags & KernelArgs.FLAG_NET_LL) != 0 ? "Ring/LL" : (p.flags & KernelArgs.FLAG_TREE) != 0
                            ? "Tree/Simple" : "Ring/Simple", p.channels()));
        }
        return b.toString();
    }

    /** Closes the network cost model (its tuner plugin), if any. */
    @Override
    public void close() {
        if (netModel != null) {
            netModel.close();
        }
    }

    /** Whether the ranks span hosts (only the ring and point-to-point kernels run). */
    public boolean acrossHosts() {
        return hosts > 1;
    }

    /** The grid limit every plan respects. */
    public int blockLimit() {
        return blockLimit;
    }

    /**
     * The allReduce kernels by size for a sum, for the INIT log: e.g. {@code ll128 to 4 MiB, twoshot to 64 MiB, ring
     * above}. Each boundary is found by bisection on {@link #chooseAllReduce}, so it is what calls get.
     */
    public String allReduceRanges() {
        StringBuilder b = new StringBuilder();
        long max = 1L << 40;
        long lo = 1;
        AllReduceAlgorithm cur = chooseAllReduce(lo, RedOp.Kind.SUM);
        while (true) {
            long hi = lo;
            while (hi < max && chooseAllReduce(hi * 2, RedOp.Kind.SUM) == cur) {
                hi *= 2;
            }
            if (hi >= max) {
                return b.isEmpty() ? cur.shortName() + " at every size" : b + ", " + cur.shortName() + " above";
            }
            long other = hi * 2;   // bisect (hi, other]: the last size of cur
            while (other - hi > 1) {
                long mid = (hi + other) >>> 1;
                if (chooseAllReduce(mid, RedOp.Kind.SUM) == cur) {
                    hi = mid;
                } else {
                    other = mid;
                }
            }
            b.append(b.isEmpty() ? "" : ", ").append(cur.shortName()).append(" to ").append(sizeName(hi));
            lo = other;
            cur = chooseAllReduce(lo, RedOp.Kind.SUM);
        }
    }

    private static String sizeName(long bytes) {
        if (bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        return bytes % 1024 == 0 ? (bytes >> 10) + " KiB" : bytes + " B";
    }

    /** The allReduce algorithm for {@code bytes} with reduction {@code op} (never AUTO). */
    public AllReduceAlgorithm chooseAllReduce(long bytes, RedOp.Kind op) {
        return chooseAllReduce(bytes, op, false);
    }

    /**
     * As above; {@code window}: every buffer of the call lies in a window on every rank, so the pull kernels may read
     * the peers' buffers through the windows' mappings even with one process per GPU (NCCL's symmetric kernels).
     */
    public AllReduceAlgorithm chooseAllReduce(long bytes, RedOp.Kind op, boolean window) {
        boolean pullOk = (peerPointers || window) && op != RedOp.Kind.PRE_MUL_SUM;
        AllReduceAlgorithm forced = options.algorithm();
        if (nRanks == 1) {
            return AllReduceAlgorithm.LL;
        }
        if (hosts > 1) {
            checkAcrossHosts();
            return treeFor(Collective.ALL_REDUCE, bytes, netModel != null
                    ? netModel.choose(Collective.ALL_REDUCE, bytes, 1) : 0) ? AllReduceAlgorithm.TREE
                    : AllReduceAlgorithm.RING;
        }
        if (forced != AllReduceAlgorithm.AUTO) {
            checkForced(forced, bytes, op, pullOk);
            return forced;
        }
        // The one-shots move (N-1)·S per GPU: with more GPUs their useful range shrinks (reference §7).
        long scale = nRanks <= 2 ? 1 : nRanks * 32L;
        if (nRanks == 2 && wholeLineLinks && bytes <= options.ll128MaxBytes()) {
            return AllReduceAlgorithm.LL128;
        }
        if (bytes <= (nRanks == 2 ? options.llMaxBytes() : llOthersMaxBytes())) {
            return AllReduceAlgorithm.LL;
        }
        if (nRanks == 2 && wholeLineLinks && bytes <= options.llPackedMaxBytes()) {
            return AllReduceAlgorithm.LL_PACKED;
        }
        long pushMax = pullOk ? Math.min(options.pushMaxBytes(), options.pullFromBytes()) : options.pushMaxBytes();
        if (bytes <= pushMax / scale) {
            return AllReduceAlgorithm.PUSH;
        }
        if (pullOk && bytes <= options.oneShotMaxBytes() / scale) {
            return AllReduceAlgorithm.ONE_SHOT;
        }
        if (pullOk && bytes <= options.twoShotMaxBytes()) {
            return AllReduceAlgorithm.TWO_SHOT;
        }
        return AllReduceAlgorithm.RING;
    }

    /**
     * Fills {@code plan} for {@code count} elements of {@code elemBytes} bytes: the whole buffer for allReduce,
     * broadcast and reduce, one rank's block for reduceScatter (recvCount), allGather (sendCount) and allToAll.
     * allToAll above the LL size plans as {@link KernelFamily#P2P} (see {@link #p2pBlocks}).
     */
    public void plan(Collective coll, long count, int elemBytes, RedOp.Kind op, Plan plan) {
        plan(coll, count, elemBytes, op, false, plan);
    }

    /**
     * As above; {@code window}: every buffer of the call lies in a window on every rank (as NCCL requires of its
     * symmetric kernels, the ranks must agree): allReduce may then run the one-shot and two-shot pull kernels with one
     * process per GPU, and reduceScatter, allGather and broadcast above the LL size read the peers' windows in place
     * ({@link #symmetric}).
     */
    public void plan(Collective coll, long count, int elemBytes, RedOp.Kind op, boolean window, Plan plan) {
        long bytes = Math.multiplyExact(count, (long) elemBytes);
        boolean small = nRanks == 1 || (hosts == 1 && bytes <= llOthersMaxBytes());
        plan.flags = 0;
        plan.chunkBytes = 0;
        plan.window = false;
        plan.pullOthers = false;
        if (window && !small && symmetric(coll, op)) {
            long written = coll == Collective.ALL_GATHER ? bytes * nRanks : bytes;
            set(plan, KernelFamily.PULL, grid(ceilDiv(written, 16), (long) THREADS * options.packsPerThread()));
            plan.pullOthers = true;
            windowFlags(plan);
            return;
        }
        switch (coll) {
            case ALL_REDUCE -> {
                if (hosts > 1) {   // the ring or the tree, by one choice of NCCL's model (ring below)
                    checkAcrossHosts();
                    ring(plan, KernelFamily.RING, bytes, coll);
                    return;
                }
                AllReduceAlgorithm a = chooseAllReduce(bytes, op, window);
                switch (a) {
                    case LL -> set(plan, KernelFamily.LL, grid(ceilDiv(bytes, 8), THREADS));
                    case LL_PACKED -> set(plan, KernelFamily.LL_PACKED, grid(ceilDiv(bytes, 48),
                            options.llPackedBlockGroups()));
                    case LL128 -> set(plan, KernelFamily.LL128, (int) Math.max(1, Math.min(
                            (long) blockLimit * options.ll128BlocksPerSm(), ceilDiv(ceilDiv(bytes, LL128_CHUNK_BYTES),
                                    THREADS / 32))));
                    case PUSH -> {
                        set(plan, KernelFamily.PUSH, grid(ceilDiv(bytes, 16),
                                (long) THREADS * options.packsPerThread()));
                        plan.chunkBytes = options.pushChunkBytes();
                    }
                    case ONE_SHOT, TWO_SHOT -> {
                        set(plan, KernelFamily.PULL, grid(ceilDiv(bytes, 16),
                                (long) THREADS * options.packsPerThread()));
                        plan.flags = (a == AllReduceAlgorithm.TWO_SHOT ? KernelArgs.FLAG_TWO_SHOT : 0)
                                | pullFlags;
                        plan.chunkBytes = GATHER_STEP_BYTES;
                        if (window) {
                            windowFlags(plan);
                        }
                    }
                    case RING, TREE -> ring(plan, KernelFamily.RING, bytes, coll);
                    default -> throw new IllegalStateException("no plan for " + a);
                }
            }
            case REDUCE_SCATTER, REDUCE -> {
                if (small) {
                    set(plan, KernelFamily.LL, grid(ceilDiv(bytes, 8), THREADS));
                } else {
                    ring(plan, KernelFamily.RING, coll == Collective.REDUCE ? bytes : bytes * nRanks, coll);
                }
            }
            case ALL_GATHER, BROADCAST -> {
                if (small) {
                    set(plan, KernelFamily.LL_COPY, grid(ceilDiv(bytes, 8), THREADS));
                } else {
                    ring(plan, KernelFamily.RING_COPY, coll == Collective.BROADCAST ? bytes : bytes * nRanks, coll);
                }
            }
            case ALL_TO_ALL -> {
                if (small) {
                    set(plan, KernelFamily.LL_COPY, grid(ceilDiv(bytes, 8), THREADS));
                } else {
                    set(plan, KernelFamily.P2P, 0);
                }
            }
            default -> throw new JcclException(Result.INVALID_ARGUMENT, coll.ncclName()
                    + " is not planned as a collective kernel");
        }
    }

    /**
     * What a call of {@code nBytes} runs (for allGather, reduceScatter and allToAll: one rank's block), as the
     * communicator launches it: the same {@link #plan}, named, with the rule that decided. Point-to-point calls
     * (send, recv and what is lowered to them) report one send's channels. {@code registered}: every buffer of the
     * call lies in a window ({@link #plan(Collective, long, int, RedOp.Kind, boolean, Plan)}).
     */
    @Override
    public Selection select(Collective coll, long nBytes, RedOp.Kind op, boolean registered) {
        if (!coll.reduces() && coll != Collective.ALL_GATHER && coll != Collective.BROADCAST
                && coll != Collective.ALL_TO_ALL) {
            return new Selection(coll, nBytes, "p2p", Protocol.SIMPLE, p2pBlocks(nBytes), 0, coll.ncclName()
                    + " runs as sends and receives: one channel per " + P2P_MIN_BYTES_PER_CHANNEL + " bytes"
                    + (hosts > 1 ? "; ranks on " + hosts + " hosts: ring/p2p over " + net : ""), null);
        }
        Plan p = new Plan();
        plan(coll, nBytes, 1, op, registered, p);
        KernelFamily f = p.family();
        Protocol proto = f == KernelFamily.LL128 ? Protocol.LL128
                : f == KernelFamily.LL || f == KernelFamily.LL_PACKED || f == KernelFamily.LL_COPY ? Protocol.LL
                : Protocol.SIMPLE;
        int channels = f == KernelFamily.P2P ? p2pBlocks(nBytes) : p.channels();
        if (netModel != null && f != KernelFamily.P2P && nRanks > 1) {
            long total = coll == Collective.ALL_GATHER || coll == Collective.REDUCE_SCATTER ? nBytes * nRanks : nBytes;
            return GpuNetTuning.priced(netModel, coll, nBytes, total, p.algorithmName(), channels, p.chunkBytes(),
                    why(coll, nBytes, op, p));
        }
        return new Selection(coll, nBytes, p.algorithmName(), proto, channels, p.chunkBytes(), why(coll, nBytes, op,
                p), null);
    }

    private String why(Collective coll, long bytes, RedOp.Kind op, Plan p) {
        if (nRanks == 1) {
            return "one rank: a local copy";
        }
        if (p.window) {
            return "every buffer in a window: the peers' windows read in place (symmetric kernel)"
                    + (p.pullOthers ? ", above the LL size (" + llOthersMaxBytes() + " bytes)" : "");
        }
        if (hosts > 1) {
            return "ranks on " + hosts + " hosts: " + (coll == Collective.ALL_REDUCE ? "ring/tree" : "ring/p2p")
                    + " over " + net + (options.algorithm() != AllReduceAlgorithm.AUTO && coll == Collective.ALL_REDUCE
                    ? " (forced " + options.algorithm().shortName() + ")" : "");
        }
        if (coll != Collective.ALL_REDUCE) {
            return bytes <= llOthersMaxBytes() ? "up to the LL size (" + llOthersMaxBytes() + " bytes)"
                    : p.family() == KernelFamily.P2P ? "above the LL size: one send and receive per peer"
                    : "above the LL size (" + llOthersMaxBytes() + " bytes): the ring";
        }
        if (options.algorithm() != AllReduceAlgorithm.AUTO) {
            return "forced by GpuOptions.algorithm (jccl.cuda.algorithm)";
        }
        boolean pullOk = peerPointers && op != RedOp.Kind.PRE_MUL_SUM;
        String links = (nRanks == 2 ? "2 GPUs" : nRanks + " GPUs") + (wholeLineLinks ? " over NVLink" : "");
        return switch (chooseAllReduce(bytes, op)) {
            case LL128 -> links + ", up to ll128MaxBytes (" + options.ll128MaxBytes() + ")";
            case LL -> links + ", up to the LL size (" + (nRanks == 2 ? options.llMaxBytes() : llOthersMaxBytes())
                    + ")";
            case LL_PACKED -> links + ", up to llPackedMaxBytes (" + options.llPackedMaxBytes() + ")";
            case PUSH -> links + ", up to the push size (pushMaxBytes"
                    + (pullOk ? ", or pullFromBytes when every buffer is addressable" : "") + ")";
            case ONE_SHOT -> links + ", every buffer addressable, up to oneShotMaxBytes ("
                    + options.oneShotMaxBytes() + ")";
            case TWO_SHOT -> links + ", every buffer addressable, up to twoShotMaxBytes ("
                    + options.twoShotMaxBytes() + ")";
            default -> links + (pullOk ? ", above every one-shot and two-shot size" : ", peers through CUDA IPC"
                    + " (no peer reads) and above the push size") + ": the ring";
        };
    }

    /**
     * Blocks (channels) one send or receive of {@code bytes} uses; a function of the byte count alone, so the
     * sender and the receiver agree. The largest value leaves room for a send and a receive with every peer plus
     * a local copy in one kernel.
     */
    public int p2pBlocks(long bytes) {
        int most = Math.max(1, Math.min(options.ringChannels(),
                (blockLimit - COPY_BLOCKS) / Math.max(1, 2 * (nRanks - 1))));
        return (int) Math.max(1, Math.min(most, ceilDiv(bytes, P2P_MIN_BYTES_PER_CHANNEL)));
    }

    /** Refuses a forced tree that could not keep its up and down blocks resident together. */
    private void checkTree(AllReduceAlgorithm a) {
        if (a == AllReduceAlgorithm.TREE && blockLimit < 2) {
            throw new JcclException(Result.INVALID_USAGE, "the tree allReduce runs two blocks a channel (one up, one"
                    + " down), but this rank may keep only " + blockLimit + " block resident (the GPU's"
                    + " multiprocessors shared by its ranks, or jccl.cuda.maxBlocks); use AUTO or RING");
        }
    }

    /** Refuses a forced allReduce that reads or writes the peers' memory, when the ranks span hosts. */
    private void checkAcrossHosts() {
        AllReduceAlgorithm forced = options.algorithm();
        checkTree(forced);
        if (forced != AllReduceAlgorithm.AUTO && forced != AllReduceAlgorithm.RING
                && forced != AllReduceAlgorithm.TREE) {
            throw new JcclException(Result.INVALID_USAGE, "the " + forced.shortName() + " allReduce reads or"
                    + " writes the peers' memory directly, but the ranks run on " + hosts + " hosts, reached only"
                    + " through the FIFOs over " + net + "; use AUTO, RING or TREE");
        }
    }

    private void checkForced(AllReduceAlgorithm a, long bytes, RedOp.Kind op, boolean pullOk) {
        checkTree(a);
        if (a == AllReduceAlgorithm.LL && bytes > options.llMaxBytes()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "the LL allReduce handles at most llMaxBytes = "
                    + options.llMaxBytes() + " bytes, got " + bytes + "; raise jccl.cuda.llMaxBytes or use AUTO");
        }
        if ((a == AllReduceAlgorithm.LL_PACKED || a == AllReduceAlgorithm.LL128) && !wholeLineLinks) {
            throw new JcclException(Result.INVALID_ARGUMENT, "the " + a.shortName() + " allReduce needs NVLink between "
                    + "the GPUs (a link that delivers 128-byte stores whole; CUDA reports no native peer atomics "
                    + "here); use AUTO");
        }
        if (a == AllReduceAlgorithm.LL_PACKED && (nRanks != 2 || bytes > options.llPackedMaxBytes())) {
            throw new JcclException(Result.INVALID_ARGUMENT, "the packed LL allReduce runs on 2 ranks (this "
                    + "communicator has " + nRanks + ") up to llPackedMaxBytes = " + options.llPackedMaxBytes()
                    + " bytes, got " + bytes + "; raise jccl.cuda.llPackedMaxBytes or use AUTO");
        }
        if (a == AllReduceAlgorithm.LL128 && (nRanks != 2 || bytes > options.ll128MaxBytes())) {
            throw new JcclException(Result.INVALID_ARGUMENT, "the LL128 allReduce runs on 2 ranks (this "
                    + "communicator has " + nRanks + ") up to ll128MaxBytes = " + options.ll128MaxBytes()
                    + " bytes, got " + bytes + "; raise jccl.cuda.ll128MaxBytes or use AUTO");
        }
        if (a == AllReduceAlgorithm.PUSH && bytes > options.pushMaxBytes()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "the push allReduce handles at most pushMaxBytes = "
                    + options.pushMaxBytes() + " bytes, got " + bytes + "; raise jccl.cuda.pushMaxBytes or use AUTO");
        }
        if ((a == AllReduceAlgorithm.ONE_SHOT || a == AllReduceAlgorithm.TWO_SHOT) && !pullOk) {
            throw new JcclException(Result.INVALID_USAGE, "the " + a.shortName() + " allReduce reads the peers' "
                    + "buffers directly: it needs one process driving every GPU (GpuCommunicator.initAll) and "
                    + (op == RedOp.Kind.PRE_MUL_SUM ? "cannot apply the peers' preMulSum scalars; " : "; ")
                    + "use AUTO, LL, PUSH or RING");
        }
    }

    /**
     * Whether {@code coll} has a pull kernel on windows (NCCL's symmetric kernels): reduceScatter, allGather and
     * broadcast on one host, but not with preMulSum (each rank's scalar would have to reach the others); allReduce
     * reaches them through {@link #chooseAllReduce}.
     */
    public boolean symmetric(Collective coll, RedOp.Kind op) {
        return hosts == 1 && nRanks > 1 && op != RedOp.Kind.PRE_MUL_SUM && (coll == Collective.REDUCE_SCATTER
                || coll == Collective.ALL_GATHER || coll == Collective.BROADCAST);
    }

    /** A pull plan on a window: the kernels address the peers through the windows unless every buffer is shared. */
    private void windowFlags(Plan plan) {
        plan.window = true;
        if (!peerPointers) {
            plan.flags |= KernelArgs.FLAG_WINDOW;
        }
    }

    /**
     * A ring plan over {@code totalBytes} (every rank's bytes for allGather and reduceScatter): channels by bytes per
     * channel, or across hosts NCCL's model's channels for the call (the model's bytes are the same total).
     */
    private void ring(Plan plan, KernelFamily family, long totalBytes, Collective coll) {
        int channelLimit = Math.min(blockLimit, options.ringChannels());
        long choice = netModel != null ? netModel.choose(coll, totalBytes, 1) : 0;   // one decision per call
        if (treeFor(coll, totalBytes, choice)) {
            // NCCL's tree: two blocks a channel (up and down), the model's channels or as many as the ring's
            int channels = netModel != null ? Tuner.channelsOf(choice)
                    : (int) Math.min(channelLimit, totalBytes / RING_MIN_BYTES_PER_CHANNEL);
            set(plan, family, 2 * Math.max(1, Math.min(Math.min(blockLimit / 2, options.ringChannels()), channels)));
            plan.flags |= KernelArgs.FLAG_TREE;
            plan.chunkBytes = options.ringSlotBytes();
            return;
        }
        if (netModel != null && Tuner.protocolOf(choice) == Protocol.LL) {
            // NCCL's model chose LL: one block on the connections' LL channel, a slot's worth of data per step
            set(plan, family, 1);
            plan.flags |= KernelArgs.FLAG_NET_LL;
            plan.chunkBytes = options.ringSlotBytes() / 2;
            return;
        }
        int channels = netModel != null ? Tuner.channelsOf(choice)
                : (int) Math.min(channelLimit, totalBytes / RING_MIN_BYTES_PER_CHANNEL);
        set(plan, family, Math.max(1, Math.min(channelLimit, channels)));
        plan.chunkBytes = options.ringSlotBytes() * options.ringChunkSteps();
    }

    /**
     * Whether an allReduce runs on the tree: forced ({@link AllReduceAlgorithm#TREE}), or across hosts when NCCL's
     * model's {@code choice} is the tree and the ring is not forced; never with fewer than two resident blocks.
     */
    private boolean treeFor(Collective coll, long bytes, long choice) {
        if (coll != Collective.ALL_REDUCE || nRanks == 1 || blockLimit < 2) {
            return false;
        }
        AllReduceAlgorithm forced = options.algorithm();
        return forced == AllReduceAlgorithm.TREE || (forced == AllReduceAlgorithm.AUTO && netModel != null
                && Tuner.algorithmOf(choice) == Algorithm.TREE);
    }

    private static void set(Plan plan, KernelFamily f, int blocks) {
        plan.family = f;
        plan.blocks = blocks;
    }

    private int grid(long work, long perBlock) {
        return (int) Math.max(1, Math.min(blockLimit, ceilDiv(work, perBlock)));
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
