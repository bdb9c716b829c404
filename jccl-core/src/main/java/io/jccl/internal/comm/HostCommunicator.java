package io.jccl.internal.comm;

import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.internal.algorithm.CollArgs;
import io.jccl.internal.enqueue.ArgsCheck;
import io.jccl.internal.enqueue.GroupState;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The communicator the application holds: validates each call, then either records it in the thread's group or
 * launches it at once through {@link CommRuntime}. Calls are numbered (the sequence number appears in every error).
 *
 * <p>Owned by: one application thread at a time (concurrent use is detected and refused). Mirrors: ncclComm's API
 * entry points (collectives.cc → ncclEnqueueCheck).
 */
public final class HostCommunicator implements Communicator, GroupState.Launchable, GroupState.Closing {
    private final CommRuntime rt;
    private final io.jccl.internal.profile.CommProbe probe;
    private final CommResilience res;
    private final GpuAccess gpu;
    private final AtomicLong seq = new AtomicLong();
    private final AtomicReference<Thread> user = new AtomicReference<>();
    private volatile boolean closed;
    /** The communicators of this one's initAll, released together; null for every other communicator. */
    private volatile LocalCloseGroup closeGroup;

    HostCommunicator(CommRuntime runtime, CommResilience resilience, GpuAccess gpu) {
        this.rt = runtime;
        this.probe = runtime.probe();
        this.res = resilience;
        this.gpu = gpu;
    }

    @Override
    public int rank() {
        return rt.rank();
    }

    @Override
    public int localRank() {
        return onThisHost(rank());
    }

    @Override
    public int localSize() {
        return onThisHost(size());
    }

    /** Ranks below {@code upTo} on this rank's host. */
    private int onThisHost(int upTo) {
        int local = 0;
        for (int r = 0; r < upTo; r++) {
            local += gpu.hostHash(r) == gpu.hostHash(rank()) ? 1 : 0;
        }
        return local;
    }

    @Override
    public int size() {
        return rt.nRanks();
    }

    @Override
    public Config config() {
        return rt.config();
    }

    @Override
    public String id() {
        return rt.id();
    }

    @Override
    public void allReduce(MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op) {
        call(Collective.ALL_REDUCE, send, recv, count, type, op, -1, -1, null);
    }

    @Override
    public void broadcast(MemorySegment send, MemorySegment recv, long count, DataType type, int root) {
        call(Collective.BROADCAST, send, recv, count, type, null, root, -1, null);
    }

    @Override
    public void reduce(MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op, int root) {
        call(Collective.REDUCE, send, recv, count, type, op, root, -1, null);
    }

    @Override
    public void allGather(MemorySegment send, MemorySegment recv, long sendCount, DataType type) {
        call(Collective.ALL_GATHER, send, recv, sendCount, type, null, -1, -1, null);
    }

    @Override
    public void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, RedOp op) {
        call(Collective.REDUCE_SCATTER, send, recv, recvCount, type, op, -1, -1, null);
    }

    @Override
    public void allToAll(MemorySegment send, MemorySegment recv, long count, DataType type) {
        if (size() >= BruckAllToAll.MIN_RANKS && count > 0 && !GroupState.inGroup() && send != null && recv != null
                && send.byteSize() >= count * type.sizeBytes() * size()
                && recv.byteSize() >= count * type.sizeBytes() * size()) {
            BruckAllToAll.run(this, send, recv, count, type);
            return;
        }
        call(Collective.ALL_TO_ALL, send, recv, count, type, null, -1, -1, null);
    }

    @Override
    public void gather(MemorySegment send, MemorySegment recv, long sendCount, DataType type, int root) {
        call(Collective.GATHER, send, recv, sendCount, type, null, root, -1, null);
    }

    @Override
    public void scatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, int root) {
        call(Collective.SCATTER, send, recv, recvCount, type, null, root, -1, null);
    }

    @Override
    public void send(MemorySegment buf, long count, DataType type, int peer) {
        call(Collective.SEND, buf, null, count, type, null, -1, peer, null);
    }

    @Override
    public void recv(MemorySegment buf, long count, DataType type, int peer) {
        call(Collective.RECV, null, buf, count, type, null, -1, peer, null);
    }

    @Override
    public void barrier() {
        call(Collective.BARRIER, null, null, 1, DataType.INT32, RedOp.SUM, -1, -1, null);
    }

    @Override
    public CompletableFuture<Void> allReduceAsync(MemorySegment send, MemorySegment recv, long count, DataType type,
            RedOp op) {
        return async(Collective.ALL_REDUCE, send, recv, count, type, op, -1, -1);
    }

    @Override
    public CompletableFuture<Void> broadcastAsync(MemorySegment send, MemorySegment recv, long count, DataType type,
            int root) {
        return async(Collective.BROADCAST, send, recv, count, type, null, root, -1);
    }

    @Override
    public CompletableFuture<Void> reduceAsync(MemorySegment send, MemorySegment recv, long count, DataType type,
            RedOp op, int root) {
        return async(Collective.REDUCE, send, recv, count, type, op, root, -1);
    }

    @Override
    public CompletableFuture<Void> allGatherAsync(MemorySegment send, MemorySegment recv, long sendCount,
            DataType type) {
        return async(Collective.ALL_GATHER, send, recv, sendCount, type, null, -1, -1);
    }

    @Override
    public CompletableFuture<Void> reduceScatterAsync(MemorySegment send, MemorySegment recv, long recvCount,
            DataType type, RedOp op) {
        return async(Collective.REDUCE_SCATTER, send, recv, recvCount, type, op, -1, -1);
    }

    @Override
    public CompletableFuture<Void> allToAllAsync(MemorySegment send, MemorySegment recv, long count, DataType type) {
        return async(Collective.ALL_TO_ALL, send, recv, count, type, null, -1, -1);
    }

    @Override
    public CompletableFuture<Void> gatherAsync(MemorySegment send, MemorySegment recv, long sendCount, DataType type,
            int root) {
        return async(Collective.GATHER, send, recv, sendCount, type, null, root, -1);
    }

    @Override
    public CompletableFuture<Void> scatterAsync(MemorySegment send, MemorySegment recv, long recvCount, DataType type,
            int root) {
        return async(Collective.SCATTER, send, recv, recvCount, type, null, root, -1);
    }

    @Override
    public CompletableFuture<Void> sendAsync(MemorySegment buf, long count, DataType type, int peer) {
        return async(Collective.SEND, buf, null, count, type, null, -1, peer);
    }

    @Override
    public CompletableFuture<Void> recvAsync(MemorySegment buf, long count, DataType type, int peer) {
        return async(Collective.RECV, null, buf, count, type, null, -1, peer);
    }

    @Override
    public CompletableFuture<Void> barrierAsync() {
        return async(Collective.BARRIER, null, null, 1, DataType.INT32, RedOp.SUM, -1, -1);
    }

    private CompletableFuture<Void> async(Collective c, MemorySegment send, MemorySegment recv, long count,
            DataType type,
                                          RedOp op, int root, int peer) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        call(c, send, recv, count, type, op, root, peer, f);
        return f;
    }

    private void call(Collective c, MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op,
                      int root, int peer, CompletableFuture<Void> future) {
        boolean claimed = enter(c);
        long s = 0;
        try {
            if (closed) {
                throw new JcclException(Result.INVALID_USAGE, "rank " + rank() + ": " + c.ncclName()
                        + " called on a closed communicator " + id());
            }
            if (rt.health().isBroken()) {
                rt.health().check("rank " + rank() + ": " + c.ncclName());
            }
            if (rt.memory().suspended()) {
                throw CommSuspend.suspendedError(rank(), c.ncclName(), id());
            }
            ArgsCheck.check(c, send, recv, count, type, op, root, peer, rank(), size());
            if (c.reduces() && count > 0) {
                rt.validateOp(c, type, op);
            }
            s = seq.incrementAndGet();
            res.status().issued(s, c, peer);
            if (c != Collective.SEND && c != Collective.RECV) {
                res.calls().called(c, count, type, op, root);
            }
            long choice = rt.choose(c, count, type, op, send, recv);
            probe.begin(c, s, count, type, op, root, peer, send, recv, choice);
            if (c == Collective.ALL_REDUCE && future == null
                    && rt.fastAllReduce(s, send, recv, count, type, op, choice)) {
                res.status().completedInline(s);
                probe.end(null);
                return;
            }
            launch(new CollArgs(c, s, orNull(send), orNull(recv), count, type, op, root, peer, choice), future);
        } catch (JcclException e) {
            probe.failed(e);
            // a communicator found broken before this call got its number: explain it as the call it would have been
            throw res.explain(e, c, s > 0 ? s : seq.get() + 1);
        } catch (RuntimeException e) {
            probe.failed(e);
            throw e;
        } finally {
            exit(claimed);
        }
    }

    /** The general path: records the call in the thread's group, or launches it now. */
    private void launch(CollArgs a, CompletableFuture<Void> future) {
        if (future != null) {
            future.whenComplete((v, e) -> res.status().completed(a.seq()));
        }
        if (!GroupState.record(this, a, future)) {
            rt.launchNow(a, future);
            probe.launched(future);
            if (future == null) {
                res.status().completed(a.seq());
            }
        } else {
            probe.recorded(future);
        }
    }

    @Override
    public io.jccl.internal.enqueue.GroupLauncher.Prepared prepare(List<GroupState.Recorded> calls) {
        boolean claimed = enter(Collective.SEND_RECV);
        try {
            long lastSync = 0;
            for (GroupState.Recorded r : calls) {
                if (r.future() == null) {
                    lastSync = Math.max(lastSync, r.args().seq());
                }
            }
            return new TrackedLaunch(probe.group(rt.prepare(calls)), lastSync);
        } finally {
            exit(claimed);
        }
    }

    /** A group's launch on this communicator that marks its synchronous calls complete once awaited. */
    private final class TrackedLaunch implements io.jccl.internal.enqueue.GroupLauncher.Prepared {
        private final io.jccl.internal.enqueue.GroupLauncher.Prepared launch;
        private final long lastSyncSeq;

        TrackedLaunch(io.jccl.internal.enqueue.GroupLauncher.Prepared launch, long lastSyncSeq) {
            this.launch = launch;
            this.lastSyncSeq = lastSyncSeq;
        }

        @Override
        public void connectSends() {
            launch.connectSends();
        }

        @Override
        public void finishConnections() {
            launch.finishConnections();
        }

        @Override
        public void submit(boolean mayInline) {
            launch.submit(mayInline);
        }

        @Override
        public void await() {
            try {
                launch.await();
            } catch (JcclException e) {
                throw res.explain(e, Collective.SEND_RECV, lastSyncSeq);
            }
            res.status().completed(lastSyncSeq);
        }
    }

    private static MemorySegment orNull(MemorySegment s) {
        return s == null ? MemorySegment.NULL : s;
    }

    /** Claims the communicator for this thread; true if this call claimed it (false: already this thread's). */
    private boolean enter(Collective c) {
        Thread me = Thread.currentThread();
        Thread prev = user.compareAndExchange(null, me);
        if (prev != null && prev != me) {
            throw new JcclException(Result.INVALID_USAGE, "rank " + rank() + ": " + c.ncclName()
                    + " called from thread "
                    + me.getName() + " while thread " + prev.getName() + " is using communicator " + id()
                    + "; a communicator must be driven by one thread at a time");
        }
        return prev == null;
    }

    /** Releases the claim taken by {@link #enter} (a release store: only the owner writes it here). */
    private void exit(boolean claimed) {
        if (claimed) {
            user.setRelease(null);
        }
    }

    @Override
    public String explain(Collective collective, long bytes) {
        return rt.explain(collective, bytes);
    }

    @Override
    public MemorySegment allocate(long bytes) {
        boolean claimed = enter(Collective.BARRIER);
        try {
            if (closed) {
                throw new JcclException(Result.INVALID_USAGE, "rank " + rank() + ": allocate on a closed communicator");
            }
            rt.health().check("rank " + rank() + ": allocate");
            checkActive("allocate");
            return rt.allocate(bytes);
        } catch (JcclException e) {
            throw res.explain(e, "allocate", null);
        } finally {
            exit(claimed);
        }
    }

    @Override
    public Communicator split(int color, int key) {
        boolean claimed = enter(Collective.BARRIER);
        try {
            checkOpen("split");
            checkActive("split");
            return res.split(color, key);
        } finally {
            exit(claimed);
        }
    }

    @Override
    public Communicator shrink(int... excludedRanks) {
        boolean claimed = enter(Collective.BARRIER);
        try {
            checkOpen("shrink");
            return res.shrink(excludedRanks == null ? new int[0] : excludedRanks);
        } finally {
            exit(claimed);
        }
    }

    @Override
    public Communicator grow(int newSize, io.jccl.UniqueId id) {
        checkOpen("grow");
        checkActive("grow");
        return CommGrow.grow(this, newSize, id);
    }

    @Override
    public void suspend() {
        boolean claimed = enter(Collective.BARRIER);
        try {
            checkOpen("suspend");
            CommSuspend.suspend(rt, res.status());
        } finally {
            exit(claimed);
        }
    }

    @Override
    public void resume() {
        boolean claimed = enter(Collective.BARRIER);
        try {
            checkOpen("resume");
            CommSuspend.resume(rt);
        } finally {
            exit(claimed);
        }
    }

    @Override
    public io.jccl.MemoryStats memoryStats() {
        return rt.memory().stats();
    }

    @Override
    public int[] lostRanks() {
        return res.lostRanks();
    }

    @Override
    public void revoke() {
        res.revoke();
    }

    /** Refuses {@code what} while the communicator is suspended. */
    private void checkActive(String what) {
        if (rt.memory().suspended()) {
            throw CommSuspend.suspendedError(rank(), what, id());
        }
    }

    private void checkOpen(String what) {
        if (closed) {
            throw new JcclException(Result.INVALID_USAGE, "rank " + rank() + ": " + what
                    + " on a closed communicator " + id());
        }
    }

    @Override
    public JcclException asyncError() {
        return rt.health().failure();
    }

    /**
     * Runs {@code r} on the thread that finds this communicator failed (a lost peer, an abort, a timeout), at once if
     * it already has; {@code r} must not block. For the GPU side, which stops its kernels then (internal: not part of
     * the {@link Communicator} API).
     */
    public void onFailure(Runnable r) {
        rt.health().onFailure(r);
    }

    /**
     * What a GPU communicator over the same ranks needs from this one to wire GPUs across hosts: host hashes, keys,
     * health, the bootstrap exchange and network connectors for kernels (internal: not part of the
     * {@link Communicator} API).
     *
     * @throws JcclException {@link Result#INVALID_USAGE} once this communicator is closed or aborted
     */
    public GpuAccess gpuAccess() {
        checkOpen("gpuAccess");
        return gpu;
    }

    /** Makes this communicator one of {@code group}, released when the last of them closes (initAll). */
    void closeTogetherWith(LocalCloseGroup group) {
        this.closeGroup = group;
    }

    @Override
    public void abort() {
        closed = true;
        rt.abort();
        arrived(null);
    }

    @Override
    public void close() {
        closed = true;
        if (GroupState.recordClose(this)) {
            return;
        }
        rt.closeBegin();
        if (closeGroup == null) {
            rt.closeFinish();
        } else {
            arrived(rt::closeFinish);
        }
    }

    /**
     * {@link #close} that is never deferred to the end of a group the calling thread has open: for an owner that
     * frees memory this communicator's threads use (a GPU communicator's pinned FIFOs, which the proxy thread moves)
     * right after it returns.
     */
    public void closeNow() {
        closed = true;
        rt.closeBegin();
        if (closeGroup == null) {
            rt.closeFinish();
        } else {
            arrived(rt::closeFinish);
        }
    }

    @Override
    public void closeBegin() {
        rt.closeBegin();
    }

    @Override
    public void closeFinish() {
        rt.closeFinish();
        arrived(null);
    }

    /** Tells this communicator's initAll group that it is closing or gone; {@code finish}: what is left to do. */
    private void arrived(Runnable finish) {
        LocalCloseGroup g = closeGroup;
        if (g != null) {
            g.arrive(rank(), finish);
        }
    }

    @Override
    public String toString() {
        return "Communicator[" + id() + " rank " + rank() + "/" + size() + "]";
    }
}
