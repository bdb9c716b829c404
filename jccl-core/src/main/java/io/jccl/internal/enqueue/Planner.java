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
import io.jccl.internal.algorithm.RankOrderCollective;
import io.jccl.internal.algorithm.RingCollective;
import io.jccl.internal.algorithm.Tree;
import io.jccl.internal.algorithm.TreeAllReduce;
import io.jccl.internal.algorithm.Work;
import io.jccl.internal.reduce.Reducer;
import io.jccl.internal.transport.LineFormat;
import io.jccl.internal.transport.shm.ShmPeerArea;
import io.jccl.internal.tuning.AlgoKind;
import io.jccl.internal.tuning.HostSelector;
import io.jccl.internal.tuning.Protocol;
import io.jccl.internal.transport.shm.ShmRegistry;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the calls of one launch (a call, or a group's calls on one communicator) into works: each call carries the
 * {@link HostSelector} decision made when it began, and becomes the work that decision names (a ring, tree,
 * one-shot, two-shot or registered allReduce; a ring for the other collectives, with the selected protocol and
 * channels); all point-to-point traffic (send, recv, and allToAll, gather, scatter lowered to sends and receives, as
 * NCCL does) becomes one batch that runs last. Every rank derives the same plan from the same calls.
 *
 * <p>Owned by: the launching thread. Mirrors: enqueue.cc taskAppend / ncclPrepareTasks / scheduleCollTasksToPlan
 * (without aggregation); the algorithm choice itself is the tuning layer's.
 */
public final class Planner {
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

    private Tree[][] trees;
    private TreeAllReduce reusableTree;

    public Planner(int rank, int nRanks, int nChannels, int stepBytes, int p2pStepBytes, MemorySegment barrierScratch,
                   ShmPeerArea area, ShmRegistry registry, Scratch scratch) {
        this.area = area;
        this.registry = registry;
        this.scratch = scratch;
        this.reusableRing = new RingCollective(stepBytes);
        this.reusableOneShot = area == null ? null : new OneShotAllReduce(area, oneShotSeq);
        this.reusableTwoShot = area == null ? null : new TwoShotAllReduce(area, oneShotSeq);
        this.rank = rank;
        this.nRanks = nRanks;
        this.nChannels = nChannels;
        this.stepBytes = stepBytes;
        this.p2pStepBytes = p2pStepBytes;
        this.barrierScratch = barrierScratch;
    }

    /** Lets allReduce run on these trees (trees[c] = tree 0 and tree 1 of channel c) when it is selected. */
    public Planner withTrees(Tree[][] channelTrees) {
        this.trees = channelTrees;
        this.reusableTree = channelTrees == null ? null : new TreeAllReduce(channelTrees, stepBytes, p2pStepBytes);
        return this;
    }

    /**
     * Whether {@code send} and {@code recv} are both registered ({@code allocate}) so that the single-copy allReduce
     * applies to them with {@code op}: an input of the selection.
     */
    public boolean registered(MemorySegment send, MemorySegment recv, RedOp op) {
        return registry != null && area != null && !registry.isEmpty() && send != null && recv != null
                && RegisteredAllReduce.applies(registry.lookup(send), registry.lookup(recv), op);
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
                        a.choice(), false));
                case ALL_GATHER, REDUCE_SCATTER, BROADCAST, REDUCE -> works.add(ring(a));
                case BARRIER -> works.add(ring(new CollArgs(Collective.ALL_REDUCE, a.seq(), barrierScratch,
                        barrierScratch, 1, DataType.INT32, RedOp.SUM, 0, -1, a.choice())));
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

    private Work ring(CollArgs a) {
        if (HostSelector.kindOf(a.choice()) == AlgoKind.RANK_ORDER) {
            return new RankOrderCollective(rank, nRanks, stepBytes, scratch).set(a, reducer(a.type(), a.op()));
        }
        Reducer red = a.coll().reduces() ? reducer(a.type(), a.op()) : null;
        return tuned(new RingCollective(stepBytes).set(a.coll(), a.seq(), a.send(), a.recv(), a.count(), a.type(),
                a.op(), a.root(), red, 1), a.choice());
    }

    private static RingCollective tuned(RingCollective r, long choice) {
        Protocol p = HostSelector.protocolOf(choice);
        return r.protocol(p == Protocol.LL ? LineFormat.LL : p == Protocol.LL128 ? LineFormat.LL128 : null)
                .channels(HostSelector.channelsOf(choice));
    }

    /**
     * The allReduce work that {@code choice} (a {@link HostSelector} decision) names. With {@code reuse}, returns
     * this planner's reusable instances (the allocation-free path runs them at once, before planning anything else).
     */
    public Work allReduce(long seq, MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op,
                          long choice, boolean reuse) {
        Reducer red = reducer(type, op);
        AlgoKind kind = HostSelector.kindOf(choice);
        return switch (kind) {
            case ONE_SHOT -> (reuse ? reusableOneShot : oneShot()).set(seq, send, recv, count, type, op, red);
            case TWO_SHOT -> (reuse ? reusableTwoShot : new TwoShotAllReduce(area, oneShotSeq)).set(seq, send, recv,
                    count, type, op, red);
            case REGISTERED -> new RegisteredAllReduce(area, registry, oneShotSeq, scratch).set(seq, send,
                    registry.lookup(send), recv, registry.lookup(recv), count, type, op, red);
            case TREE -> (reuse ? reusableTree : new TreeAllReduce(trees, stepBytes, p2pStepBytes)).set(seq, send,
                    recv, count, type, op, red, HostSelector.channelsOf(choice));
            case RANK_ORDER -> new RankOrderCollective(rank, nRanks, stepBytes, scratch).set(new CollArgs(
                    Collective.ALL_REDUCE, seq, send, recv, count, type, op, -1, -1, choice), red);
            case RING -> tuned((reuse ? reusableRing : new RingCollective(stepBytes)).set(Collective.ALL_REDUCE, seq,
                    send, recv, count, type, op, -1, red, 1), choice);
            default -> throw new IllegalStateException("an allReduce cannot run as " + kind);
        };
    }

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
