package io.jccl.internal.algorithm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.internal.base.Fingerprint;
import io.jccl.internal.reduce.Reducer;
import io.jccl.internal.transport.Connections;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * AllReduce over the double binary tree: each channel's range is split in two, the first half reduced up and
 * broadcast down tree 0, the second half tree 1 (so every host leader is interior in at most one of the trees, and
 * the two trees share the links). Both trees' reduce and broadcast pipelines advance on the channel's thread, each
 * step taken as soon as its connectors are ready; the chunk size gives at least four steps per tree when a slot
 * allows, so the levels of the tree and the two directions overlap. The root computes the result (postOp
 * included) and every other rank copies it, so all ranks get the same bits.
 *
 * <p>Tree connectors are made lazily, on the first call that runs the tree, through {@link #needs} (the launch's
 * phased, group-aware connection setup), like NCCL's runtime connection of tree channels.
 *
 * <p>Owned by: built by the launching thread; {@link #run} executes on each channel's thread. Mirrors: RunWorkColl
 * for ALGO_TREE / PROTO_SIMPLE (runTreeSplit in all_reduce.h).
 */
public final class TreeAllReduce extends Work {
    /** Smallest chunk a tree pipeline cuts its range into, unless the range is smaller. */
    static final long MIN_CHUNK_BYTES = 16 << 10;
    /** Steps each tree's range is cut into at least (slot size permitting), so the tree levels pipeline. */
    static final int MIN_STEPS = 4;

    private final Tree[][] trees;
    private final int stepBytes;
    private final int maxChunkBytes;
    private long seq;
    private MemorySegment send;
    private MemorySegment recv;
    private long count;
    private DataType type;
    private RedOp op;
    private Reducer red;
    private int nChannels;
    private int esz;

    /**
     * @param trees     trees[c] = the trees of channel c (tree 0 and tree 1), the same objects the channels' contexts
     * hold
     * @param stepBytes     slot size of the tree connectors this work creates
     * @param maxChunkBytes largest step: no more than the smallest slot any connector it may reuse has (a connector a
     *                      point-to-point call made first has the point-to-point slot size), the same on every rank
     */
    public TreeAllReduce(Tree[][] trees, int stepBytes, int maxChunkBytes) {
        this.trees = trees;
        this.stepBytes = stepBytes;
        this.maxChunkBytes = Math.min(stepBytes, maxChunkBytes);
    }

    /** Configures this instance for one call. */
    public TreeAllReduce set(long seq, MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op,
                             Reducer reducer, int nChannels) {
        this.seq = seq;
        this.send = send;
        this.recv = recv;
        this.count = count;
        this.type = type;
        this.op = op;
        this.red = reducer;
        this.nChannels = Math.max(1, Math.min(nChannels, trees.length));
        this.esz = type.sizeBytes();
        return this;
    }

    @Override
    public String description() {
        return CollArgs.describe(Collective.ALL_REDUCE, seq, count, type, op, -1, -1) + " [tree/Simple]";
    }

    @Override
    public int nChannels() {
        return nChannels;
    }

    @Override
    public long bytes() {
        return count * esz;
    }

    @Override
    public void needs(List<Connections.Need> out) {
        for (int c = 0; c < nChannels; c++) {
            for (Tree t : trees[c]) {
                if (!t.isRoot()) {
                    out.add(new Connections.Need(t.connChannel(), t.up(), true, stepBytes));
                    out.add(new Connections.Need(t.connChannel(), t.up(), false, stepBytes));
                }
                for (int d : t.down()) {
                    out.add(new Connections.Need(t.connChannel(), d, true, stepBytes));
                    out.add(new Connections.Need(t.connChannel(), d, false, stepBytes));
                }
            }
        }
    }

    /** True when every connector {@link #needs} lists exists (the inline fast path skips the setup). */
    public boolean connected(Connections conns) {
        for (int c = 0; c < nChannels; c++) {
            for (Tree t : trees[c]) {
                if (!t.isRoot() && (conns.send(t.connChannel(), t.up()) == null
                        || conns.recv(t.connChannel(), t.up()) == null)) {
                    return false;
                }
                for (int d : t.down()) {
                    if (conns.send(t.connChannel(), d) == null || conns.recv(t.connChannel(), d) == null) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    @Override
    public void run(ChannelContext ctx) {
        long off = ChannelSplit.offset(count, esz, nChannels, ctx.channel());
        long cnt = ChannelSplit.count(count, esz, nChannels, ctx.channel());
        if (cnt == 0) {
            return;
        }
        if (ctx.nRanks() == 1) {
            red.prepare(send, off * esz, recv, off * esz, (int) cnt, true);
            return;
        }
        Tree[] ts = ctx.trees();
        long align = Math.max(1, 16 / esz);
        long first = ts.length < 2 ? cnt : Math.min(cnt, (cnt / 2 + align - 1) / align * align);
        ctx.prims().begin(this, Fingerprint.of(Collective.ALL_REDUCE, count, type, op.kind(), -1));
        TreePipe p0 = new TreePipe(ts[0], ctx.connections(), ctx.prims(), red, send, recv, off, first,
                chunk(first, align));
        TreePipe p1 = first == cnt ? null : new TreePipe(ts[1], ctx.connections(), ctx.prims(), red, send, recv,
                off + first, cnt - first, chunk(cnt - first, align));
        BooleanSupplier stalled = () -> !p0.mayMove() && (p1 == null || !p1.mayMove());
        Object waiting = new Object() {
            @Override
            public String toString() {
                return "rank " + ctx.rank() + " channel " + ctx.channel() + " in " + description() + ": waiting in "
                        + p0.waitingFor() + (p1 == null ? "" : "; " + p1.waitingFor());
            }
        };
        ctx.backoff().reset();
        while (!p0.done() || (p1 != null && !p1.done())) {
            boolean moved = p0.progress() | (p1 != null && p1.progress());
            if (moved) {
                ctx.backoff().reset();
            } else {
                ctx.backoff().idle(stalled, waiting);
            }
        }
    }

    /** Elements per step for a range of {@code len}: a slot at most, a quarter of the range when that is larger. */
    private long chunk(long len, long align) {
        long slot = Math.max(align, maxChunkBytes / esz / align * align);
        long quarter = (len + MIN_STEPS - 1) / MIN_STEPS;
        long min = Math.max(align, MIN_CHUNK_BYTES / esz);
        long c = Math.max(min, (quarter + align - 1) / align * align);
        return Math.min(slot, c);
    }
}
