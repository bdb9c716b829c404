package io.jccl.internal.algorithm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.internal.base.Fingerprint;
import io.jccl.internal.reduce.Reducer;
import io.jccl.internal.transport.shm.ShmPeerArea;
import io.jccl.internal.transport.shm.ShmRegistry;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Single-copy allReduce on registered buffers of a single-host communicator: after an entry barrier every rank reduces
 * its own slice straight from every peer's send buffer (in rank order, so the result is the same wherever it is
 * computed) into its receive buffer, then after a second barrier copies the other slices straight from the peers'
 * receive buffers; an exit barrier keeps peers from reading buffers the caller may reuse. In place, the slice is
 * reduced into a private scratch first and copied back once nobody reads the inputs any more.
 *
 * <p>Owned by: channel 0's thread. Mirrors: NCCL's symmetric-memory reduce-scatter + all-gather kernels (and
 * DeepSpeed's distributed_naive_reduce), in host memory.
 */
public final class RegisteredAllReduce extends AreaAllReduce {
    private final ShmRegistry registry;
    private final int rank;
    private final int nRanks;
    private final RankOrderReduce reduce;
    private final Scratch scratch;
    private ShmRegistry.Location sendAt;
    private ShmRegistry.Location recvAt;

    public RegisteredAllReduce(ShmPeerArea area, ShmRegistry registry, long[] seqCounter, Scratch scratch) {
        super(area, seqCounter, "registered");
        this.scratch = scratch;
        this.registry = registry;
        this.rank = area.rank();
        this.nRanks = area.nRanks();
        this.reduce = new RankOrderReduce(nRanks);
    }

    public RegisteredAllReduce set(long callSeq, MemorySegment send, ShmRegistry.Location sendAt, MemorySegment recv,
                                   ShmRegistry.Location recvAt, long count, DataType type, RedOp op, Reducer red) {
        set(callSeq, send, recv, count, type, op, red);
        this.sendAt = sendAt;
        this.recvAt = recvAt;
        return this;
    }

    /** True when this algorithm can run the call (both buffers registered, an op without per-rank scalars). */
    public static boolean applies(ShmRegistry.Location sendAt, ShmRegistry.Location recvAt, RedOp op) {
        return sendAt != null && recvAt != null && op.kind() != RedOp.Kind.PRE_MUL_SUM;
    }

    @Override
    public void run(ChannelContext ctx) {
        int esz = type.sizeBytes();
        long per = (count + nRanks - 1) / nRanks;
        long lo = Math.min(count, rank * per);
        int mine = (int) Math.max(0, Math.min(count - lo, per));
        boolean inPlace = Segments.same(send, 0, recv, 0);
        long fp = Fingerprint.variant(Fingerprint.of(Collective.ALL_REDUCE, count, type, op.kind(), -1), 2);
        long s = nextSeq();
        MemorySegment where = area.mine(s);
        where.set(ValueLayout.JAVA_LONG, 0, sendAt.index());
        where.set(ValueLayout.JAVA_LONG, 8, sendAt.offset());
        where.set(ValueLayout.JAVA_LONG, 16, recvAt.index());
        where.set(ValueLayout.JAVA_LONG, 24, recvAt.offset());
        publishAndAwaitAll(ctx, s, fp);
        checkSameBuffers(ctx, s, where);
        MemorySegment out = inPlace ? scratch.get(mine * (long) esz) : recv;
        long outOff = inPlace ? 0 : lo * esz;
        if (mine > 0) {
            long in = sendAt.offset() + lo * esz;
            if (nRanks == 1) {
                red.prepare(registry.peer(sendAt.index(), 0), in, out, outOff, mine, true);
            } else {
                for (int p = 0; p < nRanks; p++) {
                    reduce.source(p, registry.peer(sendAt.index(), p), in);
                }
                reduce.run(red, nRanks, out, outOff, mine, true);
            }
        }
        barrier(ctx, fp);
        if (inPlace) {
            MemorySegment.copy(out, 0, recv, lo * esz, (long) mine * esz);
            barrier(ctx, fp);
        }
        for (int k = 1; k < nRanks; k++) {
            int p = (rank + k) % nRanks;
            long plo = Math.min(count, p * per);
            long pc = Math.max(0, Math.min(count - plo, per));
            if (pc > 0) {
                MemorySegment.copy(registry.peer(recvAt.index(), p), recvAt.offset() + plo * esz, recv, plo * esz,
                        pc * esz);
            }
        }
        barrier(ctx, fp);
    }

    private void barrier(ChannelContext ctx, long fp) {
        publishAndAwaitAll(ctx, nextSeq(), fp);
    }

    /**
     * Every rank must pass the buffers registered at the same point (the same registration, at the same offset): a
     * rank reads its peers' buffers at its own locations. Each rank published its four location words.
     */
    private void checkSameBuffers(ChannelContext ctx, long s, MemorySegment mine) {
        for (int p = 0; p < nRanks; p++) {
            MemorySegment theirs = area.data(p, s);
            if (MemorySegment.mismatch(mine, 0, 32, theirs, 0, 32) >= 0) {
                throw new io.jccl.JcclException(io.jccl.Result.INVALID_USAGE, "rank " + p + " called "
                        + description() + " on registered buffers at " + locations(theirs) + " where rank " + rank
                        + " passed " + locations(mine) + "; every rank must pass the buffers it registered at the "
                        + "same point of its registration list, at the same offsets");
            }
        }
    }

    private static String locations(MemorySegment w) {
        return "send registration #" + w.get(ValueLayout.JAVA_LONG, 0) + " offset " + w.get(ValueLayout.JAVA_LONG, 8)
                + ", receive registration #" + w.get(ValueLayout.JAVA_LONG, 16) + " offset "
                + w.get(ValueLayout.JAVA_LONG, 24);
    }
}
