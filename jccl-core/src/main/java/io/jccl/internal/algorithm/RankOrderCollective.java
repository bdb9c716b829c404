package io.jccl.internal.algorithm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.internal.reduce.Reducer;
import io.jccl.internal.transport.Connections;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The reproducible allReduce and reduceScatter for communicators without a shared area (several hosts, no shared
 * memory): every rank gathers every rank's input (after its pre-op) with a ring allGather on channel 0, then
 * reduces each element in rank order, {@code ((s0 ⊕ s1) ⊕ s2) ⊕ ...}, the order one-shot and two-shot use, so the
 * bits do not depend on the algorithm, the channel count or where the ranks run. It moves n times the data of a ring
 * allReduce and keeps the gathered inputs in a scratch buffer (allReduce: n × the buffer; reduceScatter: n × the
 * send buffer): a mode for debugging and for runs that must repeat, not for speed.
 *
 * <p>Owned by: built by the launching thread; {@link #run} executes on channel 0's thread. Mirrors: nothing in NCCL
 * (its results depend on the algorithm and channels); the reduction order is that of its one-shot kernels.
 */
public final class RankOrderCollective extends Work {
    private final RingCollective gather;
    private final RankOrderReduce reduce;
    private final Scratch scratch;
    private final int rank;
    private final int nRanks;
    private CollArgs call;
    private Reducer red;

    public RankOrderCollective(int rank, int nRanks, int stepBytes, Scratch scratch) {
        this.gather = new RingCollective(stepBytes);
        this.reduce = new RankOrderReduce(nRanks);
        this.scratch = scratch;
        this.rank = rank;
        this.nRanks = nRanks;
    }

    /** Sets the call, an ALL_REDUCE or a REDUCE_SCATTER (whose {@code count} is the block each rank receives). */
    public RankOrderCollective set(CollArgs call, Reducer red) {
        if (call.coll() != Collective.ALL_REDUCE && call.coll() != Collective.REDUCE_SCATTER) {
            throw new IllegalArgumentException("rank-order reduction of " + call.coll());
        }
        this.call = call;
        this.red = red;
        return this;
    }

    @Override
    public String description() {
        return call.describe() + " [rank order]";
    }

    @Override
    public int nChannels() {
        return 1;
    }

    @Override
    public void needs(List<Connections.Need> out) {
        // channel 0's ring connectors, made at init
    }

    @Override
    public long bytes() {
        return call.bytes();
    }

    @Override
    public void run(ChannelContext ctx) {
        DataType type = call.type();
        long count = call.count();
        int esz = type.sizeBytes();
        boolean allReduce = call.coll() == Collective.ALL_REDUCE;
        long inCount = allReduce ? count : count * nRanks;
        long blockBytes = inCount * esz;
        MemorySegment all = scratch.get(blockBytes * nRanks);
        red.prepare(call.send(), 0, all, rank * blockBytes, inCount, false);
        gather.set(Collective.ALL_GATHER, call.seq(), all.asSlice(rank * blockBytes, blockBytes), all, inCount, type,
                call.op(), -1, null, 1);
        gather.run(ctx);
        long mine = allReduce ? 0 : rank * count * esz;
        for (int p = 0; p < nRanks; p++) {
            reduce.source(p, all, p * blockBytes + mine);
        }
        reduce.run(red, nRanks, call.recv(), 0, count, true);
    }
}
