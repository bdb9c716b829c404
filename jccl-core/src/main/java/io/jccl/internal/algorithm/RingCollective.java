package io.jccl.internal.algorithm;

import io.jccl.Collective;
import io.jccl.internal.primitives.Prims;
import io.jccl.internal.reduce.Reducer;
import io.jccl.internal.transport.Connections;
import io.jccl.internal.transport.RecvConn;
import io.jccl.internal.transport.SendConn;

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
    private final CollArgs a;
    private final Reducer red;
    private final int nChannels;
    private final int stepBytes;
    private final int esz;

    public RingCollective(CollArgs args, Reducer reducer, int nChannels, int stepBytes) {
        super(args.describe());
        this.a = args;
        this.red = reducer;
        this.nChannels = nChannels;
        this.stepBytes = stepBytes;
        this.esz = args.type().sizeBytes();
    }

    @Override
    public int nChannels() {
        return nChannels;
    }

    @Override
    public long bytes() {
        return a.bytes();
    }

    @Override
    public void needs(List<Connections.Need> out) {
        // ring connectors are made at init; nothing lazy
    }

    @Override
    public void run(ChannelContext ctx) {
        long off = ChannelSplit.offset(a.count(), esz, nChannels, ctx.channel());
        long cnt = ChannelSplit.count(a.count(), esz, nChannels, ctx.channel());
        if (cnt == 0) {
            return;
        }
        Ring ring = ctx.ring();
        if (ring.nRanks() == 1) {
            runSingleRank(off, cnt);
            return;
        }
        Prims p = ctx.prims();
        p.begin(description());
        SendConn next = ctx.connections().send(ctx.channel(), ring.next());
        RecvConn prev = ctx.connections().recv(ctx.channel(), ring.prev());
        long chunk = Math.max(1, (stepBytes / esz) / align16() * align16());
        switch (a.coll()) {
            case ALL_REDUCE -> allReduce(p, ring, next, prev, off, cnt, chunk);
            case ALL_GATHER -> allGather(p, ring, next, prev, off, cnt, chunk);
            case REDUCE_SCATTER -> reduceScatter(p, ring, next, prev, off, cnt, chunk);
            case BROADCAST -> broadcast(p, ring, next, prev, off, cnt, chunk);
            case REDUCE -> reduce(p, ring, next, prev, off, cnt, chunk);
            default -> throw new IllegalStateException("not a ring collective: " + a.coll());
        }
    }

    private int align16() {
        return Math.max(1, 16 / esz);
    }

    private void runSingleRank(long off, long cnt) {
        long b = off * esz;
        switch (a.coll()) {
            case ALL_REDUCE, REDUCE, REDUCE_SCATTER -> red.prepare(a.send(), b, a.recv(), b, (int) cnt, true);
            default -> MemorySegment.copy(a.send(), b, a.recv(), b, cnt * esz);
        }
    }

    private void allReduce(Prims p, Ring ring, SendConn next, RecvConn prev, long off, long cnt, long chunk) {
        int n = ring.nRanks();
        int idx = ring.index();
        long loop = n * chunk;
        MemorySegment in = a.send();
        MemorySegment out = a.recv();
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

    private void allGather(Prims p, Ring ring, SendConn next, RecvConn prev, long off, long cnt, long chunk) {
        int n = ring.nRanks();
        for (long e = 0; e < cnt; e += chunk) {
            int nel = (int) Math.min(chunk, cnt - e);
            int bytes = nel * esz;
            long inBlock = off + e;
            long dst = ((long) ring.rankAt(0) * a.count() + inBlock) * esz;
            if (Segments.same(a.send(), inBlock * esz, a.recv(), dst)) {
                p.send(next, a.recv(), dst, bytes);
            } else {
                p.copySend(next, a.send(), inBlock * esz, a.recv(), dst, bytes);
            }
            for (int k = 1; k < n - 1; k++) {
                p.recvCopySend(prev, next, a.recv(), ((long) ring.rankAt(-k) * a.count() + inBlock) * esz, bytes);
            }
            p.recv(prev, a.recv(), ((long) ring.rankAt(1) * a.count() + inBlock) * esz, bytes);
        }
    }

    private void reduceScatter(Prims p, Ring ring, SendConn next, RecvConn prev, long off, long cnt, long chunk) {
        int n = ring.nRanks();
        for (long e = 0; e < cnt; e += chunk) {
            int nel = (int) Math.min(chunk, cnt - e);
            long inBlock = off + e;
            p.prepareSend(next, red, a.send(), ((long) ring.rankAt(-1) * a.count() + inBlock) * esz, nel);
            for (int k = 2; k < n; k++) {
                p.recvReduceSend(prev, next, red, a.send(), ((long) ring.rankAt(-k) * a.count() + inBlock) * esz, nel);
            }
            p.recvReduceCopy(prev, red, a.send(), ((long) ring.rankAt(0) * a.count() + inBlock) * esz, a.recv(),
                    inBlock * esz, nel, true);
        }
    }

    private void broadcast(Prims p, Ring ring, SendConn next, RecvConn prev, long off, long cnt, long chunk) {
        int me = ring.rankAt(0);
        boolean inPlace = Segments.same(a.send(), off * esz, a.recv(), off * esz);
        for (long e = 0; e < cnt; e += chunk) {
            int bytes = (int) Math.min(chunk, cnt - e) * esz;
            long o = (off + e) * esz;
            if (me == a.root()) {
                if (inPlace) {
                    p.send(next, a.send(), o, bytes);
                } else {
                    p.copySend(next, a.send(), o, a.recv(), o, bytes);
                }
            } else if (ring.next() == a.root()) {
                p.recv(prev, a.recv(), o, bytes);
            } else {
                p.recvCopySend(prev, next, a.recv(), o, bytes);
            }
        }
    }

    private void reduce(Prims p, Ring ring, SendConn next, RecvConn prev, long off, long cnt, long chunk) {
        int me = ring.rankAt(0);
        for (long e = 0; e < cnt; e += chunk) {
            int nel = (int) Math.min(chunk, cnt - e);
            long o = (off + e) * esz;
            if (ring.prev() == a.root()) {
                p.prepareSend(next, red, a.send(), o, nel);
            } else if (me == a.root()) {
                p.recvReduceCopy(prev, red, a.send(), o, a.recv(), o, nel, true);
            } else {
                p.recvReduceSend(prev, next, red, a.send(), o, nel);
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
