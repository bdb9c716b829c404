package io.jccl.internal.algorithm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.internal.base.Fingerprint;
import io.jccl.internal.primitives.Prims;
import io.jccl.internal.reduce.Reducer;
import io.jccl.internal.transport.Connections;
import io.jccl.internal.transport.LineFormat;
import io.jccl.internal.transport.RecvLane;
import io.jccl.internal.transport.SendLane;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Ring algorithms for allReduce, allGather, reduceScatter, broadcast and reduce, pipelined in slot-sized chunks;
 * each channel runs the ring on its own contiguous range. The step sequences follow NCCL's device code
 * (all_reduce.h, all_gather.h, reduce_scatter.h, broadcast.h, reduce.h): data moves "backwards" so chunk r ends its
 * reduction on the rank at ring position r.
 *
 * <p>Owned by: built by the launching thread; {@link #run} executes on the channel's thread. Mirrors: RunWorkColl
 * specialisations for ALGO_RING / PROTO_SIMPLE.
 */
public final class RingCollective extends Work {
    private final int stepBytes;
    private Collective coll;
    private long seq;
    private MemorySegment send;
    private MemorySegment recv;
    private long count;
    private DataType type;
    private RedOp op;
    private int root;
    private Reducer red;
    private int nChannels;
    private int esz;
    private LineFormat format;

    public RingCollective(int stepBytes) {
        this.stepBytes = stepBytes;
    }

    public RingCollective(CollArgs a, Reducer reducer, int nChannels, int stepBytes) {
        this(stepBytes);
        set(a.coll(), a.seq(), a.send(), a.recv(), a.count(), a.type(), a.op(), a.root(), reducer, nChannels);
    }

    /** Sets the channel count. */
    public RingCollective channels(int n) {
        this.nChannels = n;
        return this;
    }

    /** The protocol: null for Simple, else LL or LL128 (shared-memory connectors only). */
    public RingCollective protocol(LineFormat f) {
        this.format = f;
        return this;
    }

    /** Reconfigures this instance for another call (the allocation-free path reuses one per communicator). */
    public RingCollective set(Collective coll, long seq, MemorySegment send, MemorySegment recv, long count,
                              DataType type, RedOp op, int root, Reducer reducer, int nChannels) {
        this.coll = coll;
        this.seq = seq;
        this.send = send;
        this.recv = recv;
        this.count = count;
        this.type = type;
        this.op = op;
        this.root = root;
        this.red = reducer;
        this.nChannels = nChannels;
        this.esz = type.sizeBytes();
        this.format = null;
        return this;
    }

    @Override
    public String description() {
        return CollArgs.describe(coll, seq, count, type, op, root, -1) + " [ring/" + (format == null ? "Simple"
                : format) + "]";
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
        // ring connectors are made at init; nothing lazy
    }

    @Override
    public void run(ChannelContext ctx) {
        long off = ChannelSplit.offset(count, esz, nChannels, ctx.channel());
        long cnt = ChannelSplit.count(count, esz, nChannels, ctx.channel());
        if (cnt == 0) {
            return;
        }
        Ring ring = ctx.ring();
        if (ring.nRanks() == 1) {
            runSingleRank(off, cnt);
            return;
        }
        Prims p = ctx.prims();
        p.begin(this, Fingerprint.of(coll, count, type, op == null ? null : op.kind(), root));
        SendLane next = ctx.connections().send(ctx.channel(), ring.next()).lane(format);
        RecvLane prev = ctx.connections().recv(ctx.channel(), ring.prev()).lane(format);
        int laneBytes = format == null ? stepBytes : Math.min(next.stepBytes(), prev.stepBytes());
        long chunk = Math.max(1, (laneBytes / esz) / align16() * align16());
        switch (coll) {
            case ALL_REDUCE -> allReduce(p, ring, next, prev, off, cnt, chunk);
            case ALL_GATHER -> allGather(p, ring, next, prev, off, cnt, chunk);
            case REDUCE_SCATTER -> reduceScatter(p, ring, next, prev, off, cnt, chunk);
            case BROADCAST -> broadcast(p, ring, next, prev, off, cnt, chunk);
            case REDUCE -> reduce(p, ring, next, prev, off, cnt, chunk);
            default -> throw new IllegalStateException("not a ring collective: " + coll);
        }
    }

    private int align16() {
        return Math.max(1, 16 / esz);
    }

    private void runSingleRank(long off, long cnt) {
        long b = off * esz;
        switch (coll) {
            case ALL_REDUCE, REDUCE, REDUCE_SCATTER -> red.prepare(send, b, recv, b, (int) cnt, true);
            default -> MemorySegment.copy(send, b, recv, b, cnt * esz);
        }
    }

    private void allReduce(Prims p, Ring ring, SendLane next, RecvLane prev, long off, long cnt, long chunk) {
        int n = ring.nRanks();
        int idx = ring.index();
        long loop = n * chunk;
        MemorySegment in = send;
        MemorySegment out = recv;
        for (long e = 0; e < cnt; e += loop) {
            long rem = cnt - e;
            long cc = rem < loop ? alignUp((rem + n - 1) / n, align16()) : chunk;
            long base = off + e;
            int j = Math.floorMod(idx - 1, n);
            int nel = nelem(rem, cc, j);
            if (nel > 0) {
                p.prepareSend(next, red, in, (base + j * cc) * esz, nel);
            }
            for (int k = 2; k < n; k++) {
                j = Math.floorMod(idx - k, n);
                nel = nelem(rem, cc, j);
                if (nel > 0) {
                    p.recvReduceSend(prev, next, red, in, (base + j * cc) * esz, nel);
                }
            }
            j = idx;
            nel = nelem(rem, cc, j);
            if (nel > 0) {
                long o = (base + j * cc) * esz;
                p.recvReduceCopySend(prev, next, red, in, o, out, o, nel, true);
            }
            for (int k = 1; k < n - 1; k++) {
                j = Math.floorMod(idx - k, n);
                nel = nelem(rem, cc, j);
                if (nel > 0) {
                    p.recvCopySend(prev, next, out, (base + j * cc) * esz, nel * esz);
                }
            }
            j = Math.floorMod(idx + 1, n);
            nel = nelem(rem, cc, j);
            if (nel > 0) {
                p.recv(prev, out, (base + j * cc) * esz, nel * esz);
            }
        }
    }

    private void allGather(Prims p, Ring ring, SendLane next, RecvLane prev, long off, long cnt, long chunk) {
        int n = ring.nRanks();
        for (long e = 0; e < cnt; e += chunk) {
            int nel = (int) Math.min(chunk, cnt - e);
            int bytes = nel * esz;
            long inBlock = off + e;
            long dst = ((long) ring.rankAt(0) * count + inBlock) * esz;
            if (Segments.same(send, inBlock * esz, recv, dst)) {
                p.send(next, recv, dst, bytes);
            } else {
                p.copySend(next, send, inBlock * esz, recv, dst, bytes);
            }
            for (int k = 1; k < n - 1; k++) {
                p.recvCopySend(prev, next, recv, ((long) ring.rankAt(-k) * count + inBlock) * esz, bytes);
            }
            p.recv(prev, recv, ((long) ring.rankAt(1) * count + inBlock) * esz, bytes);
        }
    }

    private void reduceScatter(Prims p, Ring ring, SendLane next, RecvLane prev, long off, long cnt, long chunk) {
        int n = ring.nRanks();
        for (long e = 0; e < cnt; e += chunk) {
            int nel = (int) Math.min(chunk, cnt - e);
            long inBlock = off + e;
            p.prepareSend(next, red, send, ((long) ring.rankAt(-1) * count + inBlock) * esz, nel);
            for (int k = 2; k < n; k++) {
                p.recvReduceSend(prev, next, red, send, ((long) ring.rankAt(-k) * count + inBlock) * esz, nel);
            }
            p.recvReduceCopy(prev, red, send, ((long) ring.rankAt(0) * count + inBlock) * esz, recv,
                    inBlock * esz, nel, true);
        }
    }

    private void broadcast(Prims p, Ring ring, SendLane next, RecvLane prev, long off, long cnt, long chunk) {
        int me = ring.rankAt(0);
        boolean inPlace = Segments.same(send, off * esz, recv, off * esz);
        for (long e = 0; e < cnt; e += chunk) {
            int bytes = (int) Math.min(chunk, cnt - e) * esz;
            long o = (off + e) * esz;
            if (me == root) {
                if (inPlace) {
                    p.send(next, send, o, bytes);
                } else {
                    p.copySend(next, send, o, recv, o, bytes);
                }
            } else if (ring.next() == root) {
                p.recv(prev, recv, o, bytes);
            } else {
                p.recvCopySend(prev, next, recv, o, bytes);
            }
        }
    }

    private void reduce(Prims p, Ring ring, SendLane next, RecvLane prev, long off, long cnt, long chunk) {
        int me = ring.rankAt(0);
        for (long e = 0; e < cnt; e += chunk) {
            int nel = (int) Math.min(chunk, cnt - e);
            long o = (off + e) * esz;
            if (ring.prev() == root) {
                p.prepareSend(next, red, send, o, nel);
            } else if (me == root) {
                p.recvReduceCopy(prev, red, send, o, recv, o, nel, true);
            } else {
                p.recvReduceSend(prev, next, red, send, o, nel);
            }
        }
    }

    private static int nelem(long rem, long cc, int j) {
        return (int) Math.max(0, Math.min(cc, rem - j * cc));
    }

    private static long alignUp(long v, long a) {
        return (v + a - 1) / a * a;
    }

    /** Which collectives this class runs. */
    public static boolean supports(Collective c) {
        return c == Collective.ALL_REDUCE || c == Collective.ALL_GATHER || c == Collective.REDUCE_SCATTER
                || c == Collective.BROADCAST || c == Collective.REDUCE;
    }
}
