package io.jccl.internal.enqueue;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.internal.algorithm.CollArgs;
import io.jccl.internal.algorithm.OneShotAllReduce;
import io.jccl.internal.algorithm.P2pBatch;
import io.jccl.internal.algorithm.RegisteredAllReduce;
import io.jccl.internal.algorithm.TwoShotAllReduce;
import io.jccl.internal.algorithm.Scratch;
import io.jccl.internal.algorithm.P2pOp;
import io.jccl.internal.algorithm.RingCollective;
import io.jccl.internal.algorithm.Tree;
import io.jccl.internal.algorithm.TreeAllReduce;
import io.jccl.internal.algorithm.Work;
import io.jccl.internal.reduce.Reducer;
import io.jccl.internal.transport.LineFormat;
import io.jccl.internal.transport.shm.ShmPeerArea;
import io.jccl.internal.tuning.Algorithm;
import io.jccl.internal.tuning.Protocol;
import io.jccl.internal.tuning.Tuner;
import io.jccl.internal.transport.shm.ShmRegistry;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the calls of one launch (a call, or a group's calls on one communicator) into works: each collective becomes
 * a ring work (an allReduce a tree work when the tuner picks Tree) with a channel count chosen from its size; all
 * point-to-point traffic (send, recv, and allToAll,
 * gather, scatter lowered to sends and receives, as NCCL does) becomes one batch that runs last. Every rank derives
 * the same plan from the same calls.
 *
 * <p>Owned by: the launching thread. Mirrors: enqueue.cc taskAppend / ncclPrepareTasks / scheduleCollTasksToPlan
 * (without aggregation), with the algorithm choice that the tuning model will refine.
 */
public final class Planner {
    /** Bytes per channel before another channel is added. */
    static final long BYTES_PER_CHANNEL = 512 << 10;

    private final int rank;
    private final int nRanks;
    private final int nChannels;
    private final int stepBytes;
    private final int p2pStepBytes;
    private final MemorySegment barrierScratch;
    private final ShmPeerArea area;
    private final long[] oneShotSeq = new long[1];
    private final Reducer[] reducers = new Reducer[DataType.values().length * RedOp.Kind.values().length];

    private final ShmRegistry registry;
    private final Scratch scratch;
    private final RingCollective reusableRing;
    private final OneShotAllReduce reusableOneShot;
    private final TwoShotAllReduce reusableTwoShot;
    private long oneShotMax;
    private long twoShotMax;

    private final Tuner tuner;
    private Tree[][] trees;
    private TreeAllReduce reusableTree;

    public Planner(int rank, int nRanks, int nChannels, int stepBytes, int p2pStepBytes, MemorySegment barrierScratch,
                   ShmPeerArea area, ShmRegistry registry, Scratch scratch, Tuner tuner) {
        this.tuner = tuner;
        this.area = area;
        this.registry = registry;
        this.scratch = scratch;
        this.reusableRing = new RingCollective(stepBytes);
        this.reusableOneShot = area == null ? null : new OneShotAllReduce(area, oneShotSeq);
        this.reusableTwoShot = area == null ? null : new TwoShotAllReduce(area, oneShotSeq);
        this.oneShotMax = area == null ? 0 : area.maxBytes();
        this.rank = rank;
        this.nRanks = nRanks;
        this.nChannels = nChannels;
        this.stepBytes = stepBytes;
        this.p2pStepBytes = p2pStepBytes;
        this.barrierScratch = barrierScratch;
    }

    /**
     * Lets allReduce run on these trees (trees[c] = tree 0 and tree 1 of channel c) when the tuner picks Tree; null
     * keeps every collective on rings.
     */
    public Planner withTrees(Tree[][] channelTrees) {
        this.trees = channelTrees;
        this.reusableTree = channelTrees == null ? null : new TreeAllReduce(channelTrees, stepBytes, p2pStepBytes);
        return this;
    }

    /** Takes the one-shot and two-shot limits (without this: one-shot up to the area's size, no two-shot). */
    public Planner withShots(ShotLimits shots) {
        if (area != null) {
            this.oneShotMax = Math.min(shots.oneShotMaxBytes(), area.maxBytes());
            this.twoShotMax = shots.twoShotMaxBytes();
        }
        return this;
    }

    /** True when an allReduce of {@code bytes} per rank that is neither one-shot nor registered runs on the trees. */
    public boolean treeChosen(long bytes) {
        return trees != null && tuner != null && nRanks > 1
                && Tuner.algorithmOf(tuner.choose(Collective.ALL_REDUCE, bytes, 1)) == Algorithm.TREE;
    }

    public List<Work> plan(List<CollArgs> calls) {
        List<Work> works = new ArrayList<>();
        List<P2pOp> p2p = new ArrayList<>();
        List<P2pOp> selfSends = new ArrayList<>();
        List<P2pOp> selfRecvs = new ArrayList<>();
        List<MemorySegment[]> localSegs = new ArrayList<>();
        List<long[]> local = new ArrayList<>();
        String p2pName = null;
        for (CollArgs a : calls) {
            if (a.count() == 0 && a.coll() != Collective.BARRIER) {
                continue;
            }
            switch (a.coll()) {
                case ALL_REDUCE -> works.add(allReduce(a.seq(), a.send(), a.recv(), a.count(), a.type(), a.op(),
                        false));
                case ALL_GATHER, REDUCE_SCATTER, BROADCAST, REDUCE -> works.add(ring(a));
                case BARRIER -> works.add(ring(new CollArgs(Collective.ALL_REDUCE, a.seq(), barrierScratch,
                        barrierScratch, 1, DataType.INT32, RedOp.SUM, 0, -1)));
                case SEND, RECV -> {
                    P2pOp op = P2pOp.of(a.coll() == Collective.SEND, a.peer(),
                            a.coll() == Collective.SEND ? a.send() : a.recv(), 0, a);
                    if (a.peer() == rank) {
                        (op.isSend() ? selfSends : selfRecvs).add(op);
                    } else {
                        p2p.add(op);
                    }
                }
                case ALL_TO_ALL -> lowerAllToAll(a, p2p, localSegs, local);
                case GATHER -> lowerGather(a, p2p, localSegs, local);
                case SCATTER -> lowerScatter(a, p2p, localSegs, local);
                default -> throw new IllegalStateException("cannot plan " + a.coll());
            }
            if (!a.coll().reduces() && a.coll() != Collective.BARRIER && !RingCollective.supports(a.coll())) {
                p2pName = p2pName == null ? a.describe() : p2pName + " + " + a.describe();
            }
        }
        P2pBatch.checkSelf(selfSends, selfRecvs, rank);
        for (int i = 0; i < selfSends.size(); i++) {
            P2pOp s = selfSends.get(i);
            P2pOp r = selfRecvs.get(i);
            localSegs.add(new MemorySegment[] {s.seg(), r.seg()});
            local.add(new long[] {s.offset(), r.offset(), s.bytes()});
        }
        if (!p2p.isEmpty() || !local.isEmpty()) {
            works.add(new P2pBatch(p2pName == null ? "SendRecv" : p2pName, p2p, localSegs, local, nChannels,
                    p2pStepBytes));
        }
        return works;
    }

    private RingCollective ring(CollArgs a) {
        Reducer red = a.coll().reduces() ? reducer(a.type(), a.op()) : null;
        return tune(new RingCollective(stepBytes).set(a.coll(), a.seq(), a.send(), a.recv(), a.count(), a.type(),
                a.op(),
                a.root(), red, 1), a.coll(), a.bytes());
    }

    /** Channels the ring work of {@code coll} on {@code bytes} per rank uses (what {@link #plan} would set). */
    public int channels(Collective coll, long bytes) {
        long c = ringChoice(coll, bytes);
        return (int) (c >>> 8);
    }

    /** The protocol the ring work of {@code coll} on {@code bytes} per rank uses (what {@link #plan} would set). */
    public Protocol protocol(Collective coll, long bytes) {
        return Protocol.of((int) (ringChoice(coll, bytes) & 0xff));
    }

    /** (channels << 8) | protocol ordinal, without allocating. */
    private long ringChoice(Collective coll, long bytes) {
        long traffic = bytes * (coll == Collective.ALL_GATHER || coll == Collective.REDUCE_SCATTER ? nRanks : 1);
        if (tuner == null || nRanks == 1) {
            return (Math.max(1, Math.min(nChannels, traffic / BYTES_PER_CHANNEL)) << 8) | Protocol.SIMPLE.ordinal();
        }
        return packRing(tuner.choose(coll, traffic, 1));
    }

    private long packRing(long tunerChoice) {
        return ((long) Math.max(1, Math.min(nChannels, Tuner.channelsOf(tunerChoice))) << 8)
                | Tuner.protocolOf(tunerChoice).ordinal();
    }

    /**
     * Sets the protocol and channel count the tuner picks for {@code bytes} per rank (for allGather and
     * reduceScatter NCCL prices the whole gathered buffer); the same on every rank.
     */
    private RingCollective tune(RingCollective r, Collective coll, long bytes) {
        return tuned(r, ringChoice(coll, bytes));
    }

    private RingCollective tuned(RingCollective r, long c) {
        Protocol p = Protocol.of((int) (c & 0xff));
        return r.protocol(p == Protocol.LL ? LineFormat.LL : p == Protocol.LL128 ? LineFormat.LL128 : null)
                .channels((int) (c >>> 8));
    }

    /**
     * The algorithm for an allReduce, chosen only from what every rank knows alike (size, type, op, buffer
     * registration, communicator shape): one-shot for small messages on one host, the single-copy registered
     * algorithm when both buffers are registered, else the tree or the ring as the tuner picks. With {@code reuse},
     * returns this planner's reusable
     * instances (the allocation-free path runs them at once, before planning anything else).
     */
    public Work allReduce(long seq, MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op,
                          boolean reuse) {
        long bytes = count * type.sizeBytes();
        Reducer red = reducer(type, op);
        boolean oneShot = oneShot(bytes);
        if (oneShot && !registeredFirst(bytes)) {
            return (reuse ? reusableOneShot : oneShot()).set(seq, send, recv, count, type, op, red);
        }
        if (registry != null && area != null && !registry.isEmpty()) {
            ShmRegistry.Location s = registry.lookup(send);
            ShmRegistry.Location r = registry.lookup(recv);
            if (RegisteredAllReduce.applies(s, r, op)) {
                return new RegisteredAllReduce(area, registry, oneShotSeq, scratch).set(seq, send, s, recv, r, count,
                        type, op, red);
            }
        }
        if (oneShot) {
            return (reuse ? reusableOneShot : oneShot()).set(seq, send, recv, count, type, op, red);
        }
        if (twoShot(bytes)) {
            return (reuse ? reusableTwoShot : new TwoShotAllReduce(area, oneShotSeq)).set(seq, send, recv, count, type,
                    op, red);
        }
        RingCollective ring = reuse ? reusableRing : new RingCollective(stepBytes);
        if (tuner == null || nRanks == 1) {
            return tune(ring.set(Collective.ALL_REDUCE, seq, send, recv, count, type, op, -1, red, 1),
                    Collective.ALL_REDUCE, bytes);
        }
        long c = tuner.choose(Collective.ALL_REDUCE, bytes, 1);
        if (trees != null && Tuner.algorithmOf(c) == Algorithm.TREE) {
            TreeAllReduce t = reuse ? reusableTree : new TreeAllReduce(trees, stepBytes, p2pStepBytes);
            return t.set(seq, send, recv, count, type, op, red, Math.min(nChannels, Tuner.channelsOf(c)));
        }
        return tuned(ring.set(Collective.ALL_REDUCE, seq, send, recv, count, type, op, -1, red, 1), packRing(c));
    }

    /** Largest allReduce run one-shot (0 when this communicator has no shared area). */
    public long oneShotMaxBytes() {
        return oneShotMax;
    }

    /** Largest allReduce run two-shot (0: none; always 0 without a shared area). */
    public long twoShotMaxBytes() {
        return twoShotMax;
    }

    /** True when an allReduce of {@code bytes} per rank runs one-shot (the same on every rank). */
    public boolean oneShot(long bytes) {
        return area != null && bytes <= oneShotMax;
    }

    /**
     * True when an allReduce of {@code bytes} per rank that is not one-shot runs two-shot, unless both buffers are
     * registered (the same on every rank).
     */
    public boolean twoShot(long bytes) {
        return bytes > oneShotMax && bytes <= twoShotMax;
    }

    /**
     * True when this allReduce runs one-shot: small enough, and not a registered pair above
     * {@link #REGISTERED_FIRST_BYTES} / (ranks - 1), which the single-copy registered algorithm does faster (measured
     * at 512 KiB on 2 ranks: 39 µs registered against about 100 µs one-shot).
     */
    public boolean oneShot(long bytes, MemorySegment send, MemorySegment recv, RedOp op) {
        if (!oneShot(bytes)) {
            return false;
        }
        if (!registeredFirst(bytes) || registry == null || registry.isEmpty() || send == null || recv == null) {
            return true;
        }
        return !RegisteredAllReduce.applies(registry.lookup(send), registry.lookup(recv), op);
    }

    /** True when a registered pair of this size takes the registered algorithm even under one-shot's limit. */
    private boolean registeredFirst(long bytes) {
        return bytes > REGISTERED_FIRST_BYTES / Math.max(1, nRanks - 1);
    }

    /**
     * Registered buffers take the registered algorithm from this size / (ranks - 1) up, even under one-shot's limit.
     */
    static final long REGISTERED_FIRST_BYTES = 256L << 10;

    /** A new one-shot work sharing this communicator's sequence counter. */
    public OneShotAllReduce oneShot() {
        return new OneShotAllReduce(area, oneShotSeq);
    }

    /** The reducer for (type, op), cached for every op but preMulSum (whose scalar varies). */
    public Reducer reducer(DataType type, RedOp op) {
        if (op.kind() == RedOp.Kind.PRE_MUL_SUM) {
            return Reducer.of(type, op, nRanks);
        }
        int i = type.ordinal() * RedOp.Kind.values().length + op.kind().ordinal();
        Reducer r = reducers[i];
        if (r == null) {
            r = Reducer.of(type, op, nRanks);
            reducers[i] = r;
        }
        return r;
    }

    private void lowerAllToAll(CollArgs a, List<P2pOp> p2p, List<MemorySegment[]> segs, List<long[]> local) {
        long b = a.bytes();
        for (int k = 1; k < nRanks; k++) {
            int to = (rank + k) % nRanks;
            int from = (rank - k + nRanks) % nRanks;
            p2p.add(P2pOp.of(true, to, a.send(), to * b, a));
            p2p.add(P2pOp.of(false, from, a.recv(), from * b, a));
        }
        segs.add(new MemorySegment[] {a.send(), a.recv()});
        local.add(new long[] {rank * b, rank * b, b});
    }

    private void lowerGather(CollArgs a, List<P2pOp> p2p, List<MemorySegment[]> segs, List<long[]> local) {
        long b = a.bytes();
        if (rank == a.root()) {
            for (int p = 0; p < nRanks; p++) {
                if (p != rank) {
                    p2p.add(P2pOp.of(false, p, a.recv(), p * b, a));
                }
            }
            segs.add(new MemorySegment[] {a.send(), a.recv()});
            local.add(new long[] {0, rank * b, b});
        } else {
            p2p.add(P2pOp.of(true, a.root(), a.send(), 0, a));
        }
    }

    private void lowerScatter(CollArgs a, List<P2pOp> p2p, List<MemorySegment[]> segs, List<long[]> local) {
        long b = a.bytes();
        if (rank == a.root()) {
            for (int p = 0; p < nRanks; p++) {
                if (p != rank) {
                    p2p.add(P2pOp.of(true, p, a.send(), p * b, a));
                }
            }
            segs.add(new MemorySegment[] {a.send(), a.recv()});
            local.add(new long[] {rank * b, 0, b});
        } else {
            p2p.add(P2pOp.of(false, a.root(), a.recv(), 0, a));
        }
    }
}
