package io.jccl.internal.comm;

import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.internal.algorithm.ChannelContext;
import io.jccl.internal.algorithm.CollArgs;
import io.jccl.internal.algorithm.Work;
import io.jccl.internal.base.Backoff;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.IdlePolicy;
import io.jccl.internal.bootstrap.Bootstrap;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.enqueue.GroupLauncher;
import io.jccl.internal.enqueue.GroupState;
import io.jccl.internal.enqueue.Planner;
import io.jccl.internal.param.Params;
import io.jccl.internal.executor.Completion;
import io.jccl.internal.executor.HostExecutor;
import io.jccl.internal.primitives.Prims;
import io.jccl.internal.proxy.ProxyThread;
import io.jccl.internal.ras.PeerMonitor;
import io.jccl.internal.transport.Connections;
import io.jccl.internal.transport.shm.ShmPeerArea;
import io.jccl.internal.transport.shm.ShmRegistry;
import io.jccl.internal.transport.shm.ShmTransport;
import io.jccl.internal.tuning.HostSelector;
import io.jccl.internal.tuning.Tuner;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Everything a communicator owns once initialised: bootstrap, connectors, proxy, channel workers, planner, memory
 * arena and health; plus the launch sequence (plan → connect → submit → wait) and the orderly or aborting
 * shutdown. Owned by: the communicator's launching thread; teardown may come from any thread (abort).
 * Mirrors: ncclComm plus the parts of enqueue.cc / group.cc / init.cc that act on one communicator.
 */
final class CommRuntime {
    /** Ends a failure a peer reported (it is not passed on again). */
    private static final String REPORTED_BY = " (reported by rank ";
    private final int rank;
    private final int nRanks;
    private final String id;
    private final Config config;
    private final long timeoutNs;
    private final CommHealth health;
    private final Bootstrap bootstrap;
    private final Arena arena;
    private final CommMemory memory;
    private final ProxyThread proxy;
    private final Connections connections;
    private final HostExecutor executor;
    private final Planner planner;
    private final CommShape shape;
    private final ChannelLayout layout;
    private final ShmTransport shm;
    private final ShmRegistry registry;
    private final HostSelector selector;
    private final io.jccl.internal.profile.CommProbe probe;
    private static final int TAG_CLOSE = 0x4a43_4401;
    private static final int TAG_ABORT = 0x4a43_4402;
    private volatile boolean tornDown;
    private volatile boolean closeBegun;

    CommRuntime(int rank, int nRanks, String id, Config config, long timeoutNs, CommHealth health, Bootstrap bootstrap,
                CommMemory memory, ProxyThread proxy, Connections connections, ChannelLayout layout, CommShape shape,
                IdlePolicy policy, ShmTransport shm, ShmPeerArea area, io.jccl.internal.enqueue.ShotLimits shots,
                Tuner tuner) {
        this.registry = area == null ? null : new ShmRegistry(rank, id, memory.persistent().uncounted());
        this.shm = shm;
        this.rank = rank;
        this.nRanks = nRanks;
        this.id = id;
        this.config = config;
        this.timeoutNs = timeoutNs;
        this.health = health;
        this.bootstrap = bootstrap;
        this.memory = memory;
        this.arena = memory.persistent();
        this.proxy = proxy;
        this.connections = connections;
        this.shape = shape;
        this.layout = layout;
        ChannelContext[] ctx = new ChannelContext[shape.nChannels()];
        for (int c = 0; c < ctx.length; c++) {
            ctx[c] = new ChannelContext(c, rank, nRanks, new Prims(rank, c), connections, layout.rings()[c],
                    nRanks > 1 ? layout.trees()[c] : new io.jccl.internal.algorithm.Tree[0],
                    new Backoff(health, timeoutNs, policy, -1));
        }
        this.executor = new HostExecutor(ctx, health, "jccl-" + id.substring(0, 8) + "-r" + rank, policy.spins());
        bootstrap.listen(TAG_CLOSE, (peer, b) -> health.peerClosing(peer));
        bootstrap.listen(TAG_ABORT, (peer, b) -> {
            String root = new String(b, java.nio.charset.StandardCharsets.UTF_8);
            health.adoptRootCause(root);
            health.fail(new JcclException(Result.REMOTE_ERROR, root + REPORTED_BY + peer + ")", null));
        });
        health.onFailure(this::tellPeersWeFailed);
        this.planner = new Planner(rank, nRanks, shape.nChannels(), shape.stepBytes(), shape.p2pStepBytes(),
                arena.allocate(8, 8), area, registry, memory.scratch()).withTrees(nRanks > 1 ? layout.trees() : null);
        this.selector = new HostSelector(tuner, nRanks, shape.nChannels(),
                area == null ? 0 : Math.min(shots.oneShotMaxBytes(), area.maxBytes()),
                area == null ? 0 : shots.twoShotMaxBytes(), nRanks > 1, shape.stepBytes(), shape.p2pStepBytes())
                .reproducible(Params.REPRODUCIBLE.get(), area != null);
        if (selector.reproducible() && rank == 0) {
            Log.info(Subsys.INIT, rank, "JCCL_REPRODUCIBLE on: allReduce and reduceScatter reduce every element in "
                    + "rank order (%s)", area != null ? "allReduce one-shot or two-shot through shared memory, "
                    + "reduceScatter gathered then reduced" : "every input gathered on one channel, then reduced");
        }
        this.probe = new io.jccl.internal.profile.CommProbe(id, config.commName(), rank, nRanks, shape.nNodes(),
                shape.nChannels(), health::failure, health::lostRanks);
    }

    public int rank() {
        return rank;
    }

    public int nRanks() {
        return nRanks;
    }

    public String id() {
        return id;
    }

    public Config config() {
        return config;
    }

    public CommHealth health() {
        return health;
    }

    public CommShape shape() {
        return shape;
    }

    /** The memory of this rank: its ledger, and what suspend releases. */
    CommMemory memory() {
        return memory;
    }

    Bootstrap bootstrap() {
        return bootstrap;
    }

    long timeoutNs() {
        return timeoutNs;
    }

    /** True when no work is queued or running on any channel. */
    boolean idle() {
        return executor.idle();
    }

    /** Counters, JFR events, profiler hooks and the JMX bean of this rank. */
    public io.jccl.internal.profile.CommProbe probe() {
        return probe;
    }

    /**
     * Checks that {@code op} can reduce {@code type} (e.g. a fractional preMulSum scalar on integers); a refusal names
     * this rank and the call, as the argument checks do.
     */
    void validateOp(io.jccl.Collective c, DataType type, RedOp op) {
        try {
            planner.reducer(type, op);
        } catch (JcclException e) {
            throw new JcclException(e.result(), "rank " + rank + ": " + c.ncclName() + ": " + e.getMessage(), e);
        }
    }

    /**
     * The tuning layer's decision for a call, made once when it begins: the counters report it and the planner
     * builds the work it names. Allocation-free.
     */
    long choose(io.jccl.Collective c, long count, DataType type, RedOp op, MemorySegment send, MemorySegment recv) {
        return selector.choose(c, count, count * type.sizeBytes(),
                c == io.jccl.Collective.ALL_REDUCE && planner.registered(send, recv, op));
    }

    /** What this communicator runs for its calls (the init log and explain ask it). */
    public HostSelector selector() {
        return selector;
    }

    /**
     * The allocation-free path of a synchronous allReduce outside a group on an idle communicator: the work the
     * selection names, run on the caller's thread with reused work objects. Returns false when the call must take
     * the general path.
     */
    boolean fastAllReduce(long seq, MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op,
                          long choice) {
        if (nRanks == 1 || count == 0 || GroupState.inGroup()) {
            return false;
        }
        Work w = planner.allReduce(seq, send, recv, count, type, op, choice, true);
        if (w instanceof io.jccl.internal.algorithm.TreeAllReduce t && !t.connected(connections)) {
            return false;
        }
        return executor.runInlineNow(w);
    }

    /** What a call of {@code coll} on {@code bytes} per rank runs and why, with the cost model's candidates. */
    String explain(io.jccl.Collective coll, long bytes) {
        StringBuilder b = new StringBuilder("comm ").append(id).append(" rank ").append(rank).append('/').append(nRanks)
                .append(", ").append(shape.nNodes()).append(" host(s), ").append(shape.nChannels())
                        .append(" channel(s)\n");
        if (nRanks > 1) {
            b.append("channel 0: ring ").append(java.util.Arrays.toString(layout.rings()[0].userRanks()))
                    .append("; tree 0 ").append(layout.trees()[0][0]).append("; tree 1 ").append(layout.trees()[0][1])
                    .append('\n');
        }
        io.jccl.internal.tuning.Selection s = selector.select(coll, bytes, RedOp.Kind.SUM, false);
        b.append("runs: ").append(s.line()).append('\n');
        return s.model() == null ? b.toString()
                : b.append("cost model: ").append(io.jccl.internal.tuning.TuningReport.selection(s.model())).toString();
    }

    /**
     * Collective: a buffer in shared memory that every same-host peer maps, so collectives on it read peers' data in
     * place; plain native memory when some peer is on another host or shared memory is disabled.
     */
    MemorySegment allocate(long bytes) {
        if (registry == null) {
            bootstrap.barrier();
            return memory.persistent().uncounted().allocate(bytes, 4096);
        }
        try {
            return registry.allocate(bootstrap, bytes);
        } catch (JcclException e) {
            if (e.result() == Result.REMOTE_ERROR || e.result() == Result.TIMEOUT) {
                health.fail(e);
            }
            throw e;
        }
    }

    /** Launches one call outside any group: waits for it unless {@code future} is given. */
    void launchNow(CollArgs a, CompletableFuture<Void> future) {
        Launch l = prepare(List.of(new GroupState.Recorded(a, future)));
        l.connectSends();
        l.finishConnections();
        l.submit(future == null);
        if (future == null) {
            l.await();
        }
    }

    /** Phase 1 of a launch: plan and announce missing connections. */
    Launch prepare(List<GroupState.Recorded> calls) {
        List<CollArgs> args = new ArrayList<>(calls.size());
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        boolean hasSync = false;
        for (GroupState.Recorded r : calls) {
            args.add(r.args());
            if (r.future() != null) {
                futures.add(r.future());
            } else {
                hasSync = true;
            }
        }
        List<Work> works = planner.plan(args);
        List<Connections.Need> needs = new ArrayList<>();
        for (Work w : works) {
            w.needs(needs);
        }
        Launch l = new Launch(works, futures, hasSync);
        if (!needs.isEmpty()) {
            l.setup = guarded(() -> connections.begin(needs), l);
        }
        return l;
    }

    private <T> T guarded(java.util.function.Supplier<T> s, Launch l) {
        try {
            return s.get();
        } catch (JcclException e) {
            l.fail(e);
            throw health.fail(e);
        }
    }

    /** One launch on this communicator, moved through the group phases. */
    final class Launch implements GroupLauncher.Prepared {
        private final List<Work> works;
        private final List<CompletableFuture<Void>> futures;
        private final boolean hasSync;
        private Connections.Setup setup;
        private Completion completion;

        Launch(List<Work> works, List<CompletableFuture<Void>> futures, boolean hasSync) {
            this.works = works;
            this.futures = futures;
            this.hasSync = hasSync;
        }

        @Override
        public void connectSends() {
            if (setup != null) {
                guarded(() -> {
                    setup.connectSends();
                    return null;
                }, this);
            }
        }

        @Override
        public void finishConnections() {
            if (setup != null) {
                guarded(() -> {
                    setup.finish();
                    return null;
                }, this);
            }
        }

        @Override
        public void submit(boolean mayInline) {
            CompletableFuture<Void> all = null;
            if (!futures.isEmpty()) {
                all = new CompletableFuture<>();
                all.whenComplete((v, e) -> {
                    for (CompletableFuture<Void> f : futures) {
                        if (e != null) {
                            f.completeExceptionally(e);
                        } else {
                            f.complete(null);
                        }
                    }
                });
            }
            completion = new Completion(all);
            executor.launch(works, completion, mayInline && futures.isEmpty());
        }

        @Override
        public void await() {
            if (completion != null && hasSync) {
                completion.await(health);
            }
        }

        void fail(JcclException e) {
            for (CompletableFuture<Void> f : futures) {
                f.completeExceptionally(e);
            }
        }
    }

    /**
     * Orderly shutdown, first half: waits for submitted work, then tells the close peers this rank is closing (sends
     * only, so one thread can begin closing several communicators before finishing any).
     */
    void closeBegin() {
        if (tornDown || closeBegun) {
            return;
        }
        closeBegun = true;
        if (!health.isBroken()) {
            long deadline = System.nanoTime() + timeoutNs;
            while (!executor.idle() && !health.isBroken() && System.nanoTime() < deadline) {
                LockSupport.parkNanos(100_000L);
            }
        }
        health.beginClose();
        if (!health.isBroken()) {
            try {
                for (int p : closePeers()) {
                    bootstrap.send(p, TAG_CLOSE, new byte[0]);
                }
            } catch (JcclException e) {
                Log.warn(rank, "comm %s: could not tell peers it is closing (%s)", id, e.getMessage());
            }
        }
    }

    /**
     * The peers a close is agreed with: every other rank of a small communicator; in a larger one only the ranks this
     * one shares connectors with, its heartbeat peers and its ring neighbours (a symmetric set: each of them agrees
     * with this rank too), so closing costs O(channels + log n) messages and connections per rank instead of n. No
     * other rank touches this rank's memory or connections, so it may release them once these are closing.
     */
    private int[] closePeers() {
        java.util.TreeSet<Integer> s = new java.util.TreeSet<>();
        if (nRanks <= PeerMonitor.FULL_MESH_MAX) {
            for (int p = 0; p < nRanks; p++) {
                s.add(p);
            }
        } else {
            for (int p : connections.peers()) {
                s.add(p);
            }
            for (int p : PeerMonitor.watchSet(rank, nRanks)) {
                s.add(p);
            }
            s.add((rank + 1) % nRanks);
            s.add((rank - 1 + nRanks) % nRanks);
        }
        s.remove(rank);
        return s.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Orderly shutdown, second half: waits until the close peers are closing too, then releases everything. */
    void closeFinish() {
        if (tornDown) {
            return;
        }
        closeBegin();
        if (!health.isBroken()) {
            try {
                for (int p : closePeers()) {
                    bootstrap.recv(p, TAG_CLOSE, "its close (every rank must close the communicator)");
                }
            } catch (JcclException e) {
                Log.warn(rank, "comm %s: close did not hear from every peer (%s); releasing anyway", id,
                        e.getMessage());
            }
        }
        teardown();
        Log.info(Subsys.INIT, rank, "comm %s rank %d nRanks %d - Destroy COMPLETE", id, rank, nRanks);
    }

    /**
     * Best effort, without waiting: every peer learns this rank's failure at once instead of at its timeout. A small
     * communicator tells every rank directly; a larger one tells the relay graph of the peer monitor, whose ranks
     * pass it on once each (about log2(n) hops).
     */
    private void tellPeersWeFailed() {
        JcclException f = health.failure();
        boolean sparse = nRanks > PeerMonitor.FULL_MESH_MAX;
        if (f == null || (!sparse && f.result() == Result.REMOTE_ERROR && f.getCause() == null
                && f.getMessage().contains(REPORTED_BY))) {
            return;
        }
        byte[] msg = health.rootCause(rank).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int[] to = PeerMonitor.relaySet(rank, nRanks);
        Thread.ofVirtual().name("jccl-abort-notify-r" + rank).start(() -> {
            for (int p : to) {
                bootstrap.trySend(p, TAG_ABORT, msg, 500);
            }
        });
    }

    /** Immediate shutdown: every blocked wait fails with ABORTED; peers see the connections drop. */
    void abort() {
        health.fail(new JcclException(Result.ABORTED, "communicator " + id + " rank " + rank
                + " was aborted by the application"));
        teardown();
    }

    private synchronized void teardown() {
        if (tornDown) {
            return;
        }
        tornDown = true;
        probe.close();
        executor.stop(TimeUnit.SECONDS.toMillis(2));
        boolean proxyEnded = proxy == null || proxy.stop();
        bootstrap.close();
        shm.cleanup();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (!executor.allStopped() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000L);
        }
        if (executor.allStopped() && proxyEnded) {
            memory.close();
        } else {
            Log.warn(rank, "comm %s: a %s did not stop; leaving its memory mapped", id,
                    proxyEnded ? "channel worker" : "proxy thread");
        }
    }
}
