package io.jccl.cuda.internal.enqueue;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaEvent;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.internal.driver.CuMemory;
import io.jccl.cuda.internal.driver.CuModules;
import io.jccl.cuda.internal.driver.LaunchConfig;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns one rank's calls into kernel launches on the caller's stream: plans the call, writes the per-call fields of
 * the rank's {@link KernelArgs}, looks the kernel up and launches it; records sends and receives made inside a
 * group and launches them as fused p2p kernels when the group ends (and, when the rank's call check waits for the
 * other ranks, its collectives too: see {@link GpuGroups}). Launching allocates nothing for collectives.
 * Calls on a stream other than the previous call's are ordered after it (an event), so a communicator's kernels
 * always run in call order, as NCCL serialises a communicator's work.
 *
 * <p>Thread: the communicator's calling thread (one at a time). Mirrors NCCL's enqueue.cc (ncclEnqueueCheck,
 * ncclLaunchKernel) for the intra-node kernels.
 */
public final class Enqueuer implements GpuGroups.Pending {
    /** Threads of a signal wait's block: one polls, the rest only wait for it (one warp). */
    private static final int WAIT_THREADS = 32;
    /**
     * What a one-rank communicator's collective runs (NCCL's one-rank path): a copy of the input to the output when
     * they differ, nothing in place; no kernel, except for PreMulSum, which scales.
     */
    public static final String ONE_RANK = "copy";
    private final CudaDevice device;
    private final int rank;
    private final int nRanks;
    private final KernelArgs args;
    private final CollPlanner planner;
    private final Kernels kernels;
    private final Plan plan = new Plan();
    private final P2pQueue p2p = new P2pQueue();
    private CudaStream p2pStream;
    private CudaStream lastStream;
    private CudaEvent orderEvent;
    private final LaunchConfig launchConfig = new LaunchConfig(Arena.ofAuto());
    /** Record collectives made inside a group, to launch at its end (after the group's call check). */
    private final boolean deferInGroups;
    private final LaunchRecorder recorder;
    private final List<Deferred> deferred = new ArrayList<>();

    /** A collective recorded inside a group: {@link #collective}'s arguments, or {@link #p2pNow}'s ({@code ops}). */
    private record Deferred(Collective coll, long in, long out, long count, DataType type, RedOp op, int root,
                            List<P2pQueue.Op> ops, long[] window, CudaStream stream) {
    }

    /**
     * Launch kernels with programmatic stream serialization (programmatic dependent launch): a kernel's blocks may be
     * scheduled while the previous kernel of the stream finishes; each kernel waits for it before touching memory.
     */
    static final boolean PDL = io.jccl.internal.param.InternalProperties.CUDA_PDL.get();
    /** The same inside stream captures (the graph then holds programmatic edges); false costs a capture query. */
    static final boolean PDL_IN_CAPTURE = io.jccl.internal.param.InternalProperties.CUDA_PDL_CAPTURE.get();

    /**
     * {@code commId}: the host communicator's id (for the launch events); {@code deferInGroups}: collectives made
     * inside a GPU group are recorded and launched at its end (after the rank's call check compared them with the
     * other ranks'), not at once.
     */
    private java.util.function.Consumer<CudaStream> launchHook = s -> { };
    private boolean programmatic = PDL;

    public Enqueuer(CudaDevice device, String commId, int rank, int nRanks, KernelArgs args, CollPlanner planner,
                    boolean deferInGroups) {
        this.device = device;
        this.recorder = new LaunchRecorder(commId, rank, nRanks);
        this.deferInGroups = deferInGroups;
        this.rank = rank;
        this.nRanks = nRanks;
        this.args = args;
        this.planner = planner;
        this.kernels = new Kernels(device);
    }

    /**
     * Runs {@code hook} on the stream of every kernel launch, before the launch (the communicator tells a capture
     * on that stream which memory epoch it captured).
     */
    public void onLaunch(java.util.function.Consumer<CudaStream> hook) {
        this.launchHook = hook;
    }

    /**
     * Launches without programmatic dependent launch, for ranks that share a GPU: a kernel's successor would hold
     * block slots from its start, and two ranks' kernels, each with its successor resident, can fill the GPU so that
     * the peer kernel they both wait for never starts.
     */
    public void noProgrammaticLaunch() {
        this.programmatic = false;
    }

    /** Whether kernels launch with programmatic dependent launch. */
    public boolean programmaticLaunch() {
        return programmatic;
    }

    public CollPlanner planner() {
        return planner;
    }

    public Kernels kernels() {
        return kernels;
    }

    /** Whether a collective with {@code op} (null: none) runs as {@link #ONE_RANK}: one rank, and no scaling. */
    public boolean oneRankCopy(RedOp op) {
        return nRanks == 1 && (op == null || op.kind() != RedOp.Kind.PRE_MUL_SUM);
    }

    /**
     * Launches collective {@code coll} (not allToAll above the LL size: {@link #allToAll}); {@code count} as
     * {@link CollPlanner#plan} defines it.
     */
    public void collective(Collective coll, long in, long out, long count, DataType type, RedOp op, int root,
                           CudaStream stream) {
        collective(coll, in, out, count, type, op, root, null, stream);
    }

    /**
     * As above; {@code window}: null, or every rank's window holding the call's buffers, as this GPU addresses it
     * (every rank's buffers must lie in a window, as NCCL's symmetric kernels require): the planner may then choose
     * the pull kernels that read the peers' windows ({@link CollPlanner#plan(Collective, long, int, RedOp.Kind,
     * boolean, Plan)}).
     */
    public void collective(Collective coll, long in, long out, long count, DataType type, RedOp op, int root,
                           long[] window, CudaStream stream) {
        if (deferInGroups && GpuGroups.inGroup()) {
            defer(new Deferred(coll, in, out, count, type, op, root, null, window, stream));
            return;
        }
        GpuLaunchEvent event = recorder.begin();
        if (oneRankCopy(op)) {   // nothing to exchange or combine: no kernel
            long bytes = count * type.sizeBytes();
            if (in != out && bytes > 0) {
                CuMemory.copyAsync(out, in, bytes, stream.handle());
            }
            recorder.commit(event, coll, count, type, bytes, coll.rooted() ? root : -1, ONE_RANK, 0, 0);
            return;
        }
        planner.plan(coll, count, type.sizeBytes(), op.kind(), window != null, plan);
        if ((plan.flags & KernelArgs.FLAG_WINDOW) != 0) {
            args.setWindow(window);
        }
        if (plan.family == KernelFamily.P2P) {
            int blocks = allToAll(in, out, count * type.sizeBytes(), stream);
            recorder.commit(event, coll, count, type, count * type.sizeBytes() * nRanks, -1, "p2p", blocks, 0);
            return;
        }
        int opCode;
        boolean sumOnly;
        int flags = plan.flags;
        double scaleF = 1.0;
        long scaleI = 1;
        switch (op.kind()) {
            case SUM -> {
                opCode = 0;
                sumOnly = true;
            }
            case AVG -> {
                opCode = 0;
                sumOnly = true;
                flags |= KernelArgs.FLAG_POST_DIV;
            }
            case PRE_MUL_SUM -> {
                opCode = 0;
                sumOnly = true;
                flags |= KernelArgs.FLAG_PRE_SCALE;
                scaleF = op.scalar();
                scaleI = (long) op.scalar();
            }
            case PROD -> {
                opCode = 1;
                sumOnly = false;
            }
            case MAX -> {
                opCode = 2;
                sumOnly = false;
            }
            case MIN -> {
                opCode = 3;
                sumOnly = false;
            }
            default -> throw new IllegalStateException("unknown reduction " + op);
        }
        MemorySegment fn = kernels.get(plan.family, type, sumOnly);
        long kernelCount = plan.family.reduces() ? count : count * type.sizeBytes();
        args.setCall(coll.ncclId(), in, out, kernelCount, root, opCode, flags, scaleF, scaleI, plan.chunkBytes);
        int blocks = plan.blocks;
        if (blocks > planner.blockLimit()) {
            // only LL128 plans more blocks than SMs (ll128BlocksPerSm): every one must stay resident
            blocks = Math.min(blocks, planner.blockLimit() * kernels.blocksPerSm(plan.family, type, sumOnly));
        }
        launch(fn, blocks, stream);
        recorder.commit(event, coll, count, type, count * type.sizeBytes(), coll.rooted() ? root : -1,
                plan.algorithmName(), blocks, plan.chunkBytes);
    }

    /** allToAll by point-to-point: {@code bytes} to and from every rank, launched now; returns the blocks launched. */
    private int allToAll(long in, long out, long bytes, CudaStream stream) {
        List<P2pQueue.Op> ops = new java.util.ArrayList<>(2 * nRanks);
        for (int p = 0; p < nRanks; p++) {
            ops.add(new P2pQueue.Op(KernelArgs.P2P_SEND, p, in + p * bytes, bytes));
            ops.add(new P2pQueue.Op(KernelArgs.P2P_RECV, p, out + p * bytes, bytes));
        }
        return launchRounds(P2pQueue.rounds(ops, rank, nRanks, planner), stream);
    }

    /**
     * A send ({@link KernelArgs#P2P_SEND}) or receive of {@code bytes} at {@code ptr} with {@code peer}: recorded
     * inside a group (launched by {@link #flush} at its end), launched at once otherwise.
     */
    public void p2p(short kind, int peer, long ptr, long bytes, CudaStream stream) {
        P2pQueue.Op op = new P2pQueue.Op(kind, peer, ptr, bytes);
        if (!GpuGroups.inGroup()) {
            GpuLaunchEvent event = recorder.begin();
            int blocks = launchRounds(P2pQueue.rounds(List.of(op), rank, nRanks, planner), stream);
            recorder.commit(event, Collective.SEND_RECV, bytes, null, bytes, -1, "p2p", blocks, 0);
            return;
        }
        if (p2pStream != null && !p2pStream.equals(stream)) {
            throw new JcclException(Result.INVALID_USAGE, "rank " + rank + ": the sends and receives of one group "
                    + "must use one stream per communicator (got " + stream + " after " + p2pStream + ")");
        }
        p2pStream = stream;
        p2p.add(op);
        GpuGroups.register(this);
    }

    /**
     * Queues on {@code stream} a one-warp kernel that advances this rank's counter at {@code counter} by
     * {@code count} and waits until the 32-bit signal word at {@code word} (this rank's memory, added to by
     * {@code peer}'s {@link #signal}s) reaches it, with a wrapping compare. The count advances on the GPU, so a graph
     * replaying the wait waits for new signals. The wait ends at the communicator's limit or abort like every other
     * (TIMEOUT naming {@code peer}). Never deferred by a group.
     */
    public void waitSignal(int peer, long word, long counter, int count, CudaStream stream) {
        GpuLaunchEvent event = recorder.begin();
        args.setCall(-1, 0, 0, 0, -1, 0, 0, 1.0, 1, 0);
        args.setP2p(0, KernelArgs.P2P_WAIT, peer, word, Integer.toUnsignedLong(count), counter, 1);
        launch(kernels.get(KernelFamily.P2P, DataType.UINT8, true), 1, WAIT_THREADS, stream);
        recorder.commit(event, Collective.SEND_RECV, 0, null, 0, -1, "wait", 1, 0);
    }

    /**
     * Queues on {@code stream} a one-warp kernel that adds {@code add} to {@code peer}'s signal word at
     * {@code word} (release, system scope), after whatever the stream ran before it: putSignal's signal.
     */
    public void signal(int peer, long word, int add, CudaStream stream) {
        GpuLaunchEvent event = recorder.begin();
        args.setCall(-1, 0, 0, 0, -1, 0, 0, 1.0, 1, 0);
        args.setP2p(0, KernelArgs.P2P_SIGNAL, peer, word, Integer.toUnsignedLong(add), 0, 1);
        launch(kernels.get(KernelFamily.P2P, DataType.UINT8, true), 1, WAIT_THREADS, stream);
        recorder.commit(event, Collective.SEND_RECV, 0, null, 0, -1, "signal", 1, 0);
    }

    /**
     * As {@link #waitSignal}, for {@code n} signal words at once (one block each): block i waits until
     * {@code words[i]} reaches {@code counts[i]}, set by {@code peers[i]} (the arrays' first n entries). What the
     * copy-engine collectives wait for.
     */
    public void waitSignals(int n, int[] peers, long[] words, int[] counts, CudaStream stream) {
        if (n < 1 || n > KernelArgs.MAX_P2P_OPS) {
            throw new IllegalArgumentException("1 to " + KernelArgs.MAX_P2P_OPS + " waits, got " + n);
        }
        args.setCall(-1, 0, 0, 0, -1, 0, 0, 1.0, 1, 0);
        for (int i = 0; i < n; i++) {
            args.setP2p(i, KernelArgs.P2P_WAIT, peers[i], words[i], Integer.toUnsignedLong(counts[i]), 0, 1);
        }
        launch(kernels.get(KernelFamily.P2P, DataType.UINT8, true), n, WAIT_THREADS, stream);
    }

    /**
     * Several sends/receives/copies of collective {@code coll} (gather, scatter: {@code count} elements of
     * {@code type} per rank) launched now as fused rounds.
     */
    public void p2pNow(Collective coll, long count, DataType type, int root, List<P2pQueue.Op> ops,
                       CudaStream stream) {
        if (deferInGroups && GpuGroups.inGroup()) {
            defer(new Deferred(coll, 0, 0, count, type, null, root, ops, null, stream));
            return;
        }
        GpuLaunchEvent event = recorder.begin();
        int blocks = launchRounds(P2pQueue.rounds(ops, rank, nRanks, planner), stream);
        recorder.commit(event, coll, count, type, count * type.sizeBytes(), root, "p2p", blocks, 0);
    }

    private void defer(Deferred d) {
        deferred.add(d);
        GpuGroups.register(this);
    }

    @Override
    public void flush() {
        if (!deferred.isEmpty()) {   // the group has ended: these launch now, in call order
            List<Deferred> todo = List.copyOf(deferred);
            deferred.clear();
            for (Deferred d : todo) {
                if (d.ops() != null) {
                    p2pNow(d.coll(), d.count(), d.type(), d.root(), d.ops(), d.stream());
                } else {
                    collective(d.coll(), d.in(), d.out(), d.count(), d.type(), d.op(), d.root(), d.window(),
                            d.stream());
                }
            }
        }
        if (p2p.isEmpty()) {
            return;
        }
        CudaStream s = p2pStream;
        p2pStream = null;
        GpuLaunchEvent event = recorder.begin();
        List<P2pQueue.Op> ops = p2p.drain();
        int blocks = launchRounds(P2pQueue.rounds(ops, rank, nRanks, planner), s);
        long bytes = event == null ? 0 : ops.stream().mapToLong(P2pQueue.Op::bytes).sum();   // only while recording
        recorder.commit(event, Collective.SEND_RECV, bytes, null, bytes, -1, "p2p", blocks, 0);
    }

    /** Drops the collectives recorded in this group (the other ranks' calls differed: none launches them). */
    public void dropDeferred() {
        deferred.clear();
    }

    /** Drops recorded operations (the communicator is closing). */
    public void discard() {
        deferred.clear();
        p2p.drain();
        p2pStream = null;
        GpuGroups.forget(this);
    }

    /** Launches {@code rounds}, one kernel each; returns the blocks launched in all. */
    private int launchRounds(List<List<P2pQueue.Planned>> rounds, CudaStream stream) {
        if (rounds.isEmpty()) {
            return 0;
        }
        int launched = 0;
        MemorySegment fn = kernels.get(KernelFamily.P2P, DataType.UINT8, true);
        for (List<P2pQueue.Planned> round : rounds) {
            args.setCall(-1, 0, 0, 0, -1, 0, 0, 1.0, 1, 0);
            int blocks = 0;
            for (int i = 0; i < round.size(); i++) {
                P2pQueue.Planned p = round.get(i);
                args.setP2p(i, p.kind(), p.peer(), p.ptr(), p.src(), p.bytes(), p.blocks());
                blocks += p.blocks();
            }
            launch(fn, blocks, stream);
            launched += blocks;
        }
        return launched;
    }

    private void launch(MemorySegment fn, int blocks, CudaStream stream) {
        launch(fn, blocks, CollPlanner.THREADS, stream);
    }

    private void launch(MemorySegment fn, int blocks, int threads, CudaStream stream) {
        launchHook.accept(stream);
        device.makeCurrent();
        order(stream);
        boolean pdl = programmatic && (PDL_IN_CAPTURE || !stream.isCapturing());
        CuModules.launch(fn, launchConfig.set(blocks, threads, 0, stream.handle(), pdl), args.params());
    }

    /** Makes {@code stream} wait for the work this rank queued on a different stream before (outside captures). */
    private void order(CudaStream stream) {
        CudaStream last = lastStream;
        lastStream = stream;
        if (last == null || last.equals(stream)) {
            return;
        }
        try {
            if (last.isCapturing() || stream.isCapturing()) {
                return;
            }
            if (orderEvent == null) {
                orderEvent = CudaEvent.create(device);
            }
            orderEvent.record(last);
            stream.waitFor(orderEvent);
        } catch (JcclException e) {
            if (e.result() != Result.INVALID_USAGE) {
                throw e;
            }
            // the previous stream was closed: its work completes on its own, nothing left to order against
        }
    }

    /** Releases the ordering event. */
    public void close() {
        discard();
        planner.close();
        if (orderEvent != null) {
            orderEvent.close();
            orderEvent = null;
        }
    }
}
