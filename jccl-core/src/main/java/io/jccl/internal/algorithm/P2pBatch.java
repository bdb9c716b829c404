package io.jccl.internal.algorithm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.Fingerprint;
import io.jccl.internal.transport.Connections;
import io.jccl.internal.transport.RecvConn;
import io.jccl.internal.transport.SendConn;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * All point-to-point transfers of one group on one communicator (sends, receives, and the lowered allToAll, gather
 * and scatter), progressed together so that any pattern of matching sends and receives completes without deadlock.
 * Each message is split over channels by size, the same way on both ends; per peer and direction, messages keep
 * their call order. Transfers to oneself are plain copies. A receive into the very bytes a send to the same peer
 * reads (an in-place allToAll) is held back, step by step, until those bytes are sent.
 *
 * <p>Owned by: built by the launching thread; each channel's part runs on that channel's thread. Mirrors: NCCL's p2p
 * work batches (ncclDevWorkP2p) and the send/recv kernels.
 */
public final class P2pBatch extends Work {
    /** Messages at least this large per channel are spread over several channels. */
    static final long BYTES_PER_CHANNEL = 256 << 10;

    private final List<P2pOp> ops;
    private final List<long[]> localCopies;
    private final List<MemorySegment[]> localSegs;
    private final int maxChannels;
    private final int stepBytes;
    private final int nChannels;
    private final long totalBytes;
    private final String description;

    /**
     * @param ops         transfers with other ranks (self transfers must already be turned into local copies)
     * @param maxChannels channels p2p may use on this communicator (the same on every rank)
     * @param stepBytes   slot size for connectors created for this batch
     */
    public P2pBatch(String description, List<P2pOp> ops, List<MemorySegment[]> localSegs, List<long[]> localCopies,
                    int maxChannels, int stepBytes) {
        this.description = description;
        this.ops = ops;
        this.localSegs = localSegs;
        this.localCopies = localCopies;
        this.maxChannels = maxChannels;
        this.stepBytes = stepBytes;
        int n = 1;
        long total = 0;
        for (P2pOp op : ops) {
            n = Math.max(n, parts(op.bytes()));
            total += op.bytes();
        }
        this.nChannels = n;
        this.totalBytes = total;
    }

    @Override
    public String description() {
        return description;
    }

    private int parts(long bytes) {
        return (int) Math.max(1, Math.min(maxChannels, bytes / BYTES_PER_CHANNEL));
    }

    @Override
    public int nChannels() {
        return nChannels;
    }

    @Override
    public long bytes() {
        return totalBytes;
    }

    @Override
    public void needs(List<Connections.Need> out) {
        for (P2pOp op : ops) {
            int p = parts(op.bytes());
            for (int c = 0; c < p; c++) {
                if (ChannelSplit.count(op.bytes(), 1, p, c) > 0) {
                    out.add(new Connections.Need(c, op.peer(), op.isSend(), stepBytes));
                }
            }
        }
    }

    /** One message's part on this channel. */
    private static final class Flow {
        final P2pOp op;
        long pos;
        final long end;
        /** For a receive into the very bytes a send to the same peer reads (in place): that send, else null. */
        Flow guard;

        Flow(P2pOp op, long pos, long end) {
            this.op = op;
            this.pos = pos;
            this.end = end;
        }
    }

    @Override
    public void run(ChannelContext ctx) {
        int c = ctx.channel();
        if (c == 0) {
            for (int i = 0; i < localCopies.size(); i++) {
                long[] l = localCopies.get(i);
                MemorySegment[] s = localSegs.get(i);
                MemorySegment.copy(s[0], l[0], s[1], l[1], l[2]);
            }
        }
        Map<Integer, ArrayDeque<Flow>> sends = new LinkedHashMap<>();
        Map<Integer, ArrayDeque<Flow>> recvs = new LinkedHashMap<>();
        for (P2pOp op : ops) {
            int p = parts(op.bytes());
            long cnt = c < p ? ChannelSplit.count(op.bytes(), 1, p, c) : 0;
            if (cnt == 0) {
                continue;
            }
            long start = op.offset() + ChannelSplit.offset(op.bytes(), 1, p, c);
            (op.isSend() ? sends : recvs).computeIfAbsent(op.peer(), k -> new ArrayDeque<>())
                    .add(new Flow(op, start, start + cnt));
        }
        guardInPlace(sends, recvs);
        ctx.prims().begin(this);
        List<ArrayDeque<Flow>> sq = new ArrayList<>(sends.values());
        List<ArrayDeque<Flow>> rq = new ArrayList<>(recvs.values());
        BooleanSupplier stalled = () -> !anyReady(ctx, sq, rq);
        Object waitingFor = new Object() {
            @Override
            public String toString() {
                return "rank " + ctx.rank() + " channel " + c + " in " + description() + ": waiting for "
                        + pendingPeers(sq, rq);
            }
        };
        ctx.backoff().reset();
        while (!sq.isEmpty() || !rq.isEmpty()) {
            boolean moved = progressSends(ctx, sq) | progressRecvs(ctx, rq);
            sq.removeIf(ArrayDeque::isEmpty);
            rq.removeIf(ArrayDeque::isEmpty);
            if (moved) {
                ctx.backoff().reset();
            } else if (!sq.isEmpty() || !rq.isEmpty()) {
                ctx.backoff().idle(stalled, waitingFor);
            }
        }
    }

    private boolean progressSends(ChannelContext ctx, List<ArrayDeque<Flow>> queues) {
        boolean moved = false;
        for (ArrayDeque<Flow> q : queues) {
            Flow f = q.peek();
            SendConn s = ctx.connections().send(ctx.channel(), f.op.peer());
            while (f != null && s.ready()) {
                int n = (int) Math.min(s.stepBytes(), f.end - f.pos);
                ctx.prims().begin(this, f.op.tag());
                ctx.prims().send(s, f.op.seg(), f.pos, n);
                f.pos += n;
                moved = true;
                if (f.pos == f.end) {
                    q.poll();
                    f = q.peek();
                }
            }
        }
        return moved;
    }

    private boolean progressRecvs(ChannelContext ctx, List<ArrayDeque<Flow>> queues) {
        boolean moved = false;
        for (ArrayDeque<Flow> q : queues) {
            Flow f = q.peek();
            RecvConn r = ctx.connections().recv(ctx.channel(), f.op.peer());
            while (f != null && r.ready() && !heldBack(f, r)) {
                MemorySegment slot = r.await();
                int size = r.size();
                long tag = r.tag();
                if (tag != 0 && tag != f.op.tag()) {
                    throw mismatch(ctx.rank(), f.op, tag);
                }
                if (size > f.end - f.pos || size == 0) {
                    throw ctx.prims().mismatch(f.op.peer(), f.end - f.pos, size);
                }
                MemorySegment.copy(slot, 0, f.op.seg(), f.pos, size);
                r.release();
                f.pos += size;
                moved = true;
                if (f.pos == f.end) {
                    q.poll();
                    f = q.peek();
                }
            }
        }
        return moved;
    }

    /**
     * Pairs each receive with a send to the same peer over exactly the same bytes (an in-place allToAll's block p is
     * sent to rank p and overwritten by rank p's block), so that the receive cannot overwrite bytes not yet sent.
     */
    private static void guardInPlace(Map<Integer, ArrayDeque<Flow>> sends, Map<Integer, ArrayDeque<Flow>> recvs) {
        for (Map.Entry<Integer, ArrayDeque<Flow>> e : recvs.entrySet()) {
            ArrayDeque<Flow> out = sends.get(e.getKey());
            if (out == null) {
                continue;
            }
            for (Flow r : e.getValue()) {
                for (Flow s : out) {
                    if (s.end - s.pos == r.end - r.pos && Segments.same(s.op.seg(), s.pos, r.op.seg(), r.pos)) {
                        r.guard = s;
                    }
                }
            }
        }
    }

    /**
     * True while the next step of {@code f} (ready on {@code r}) would overwrite bytes its guarding send has not sent
     * yet. The peer runs the same pairing, and sends wait only for slots, so the two sides cannot wait on each other.
     */
    private static boolean heldBack(Flow f, RecvConn r) {
        if (f.guard == null || f.guard.pos == f.guard.end) {
            return false;
        }
        r.await();
        return f.guard.pos - f.guard.end + f.end < f.pos + r.size();
    }

    /** A receive met a step of another call: names both, the sender's as a send to this rank. */
    private static JcclException mismatch(int rank, P2pOp mine, long theirs) {
        String sent = Fingerprint.describe(theirs);
        if ((theirs & 0x1f) == io.jccl.Collective.SEND_RECV.ordinal()) {
            sent = "Send" + sent.substring(sent.indexOf('('), sent.length() - 1) + " to " + rank + ")";
        }
        return new JcclException(Result.INVALID_USAGE, "rank " + mine.peer() + " called " + sent + " where rank "
                + rank + " called " + mine.what() + "; a send and its receive must have the same count and type, and "
                + "every rank must make the same collective calls in the same order");
    }

    private static boolean anyReady(ChannelContext ctx, List<ArrayDeque<Flow>> sq, List<ArrayDeque<Flow>> rq) {
        for (ArrayDeque<Flow> q : sq) {
            if (!q.isEmpty() && ctx.connections().send(ctx.channel(), q.peek().op.peer()).ready()) {
                return true;
            }
        }
        for (ArrayDeque<Flow> q : rq) {
            if (!q.isEmpty()) {
                RecvConn r = ctx.connections().recv(ctx.channel(), q.peek().op.peer());
                if (r.ready() && !heldBack(q.peek(), r)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String pendingPeers(List<ArrayDeque<Flow>> sq, List<ArrayDeque<Flow>> rq) {
        StringBuilder b = new StringBuilder();
        for (ArrayDeque<Flow> q : sq) {
            if (!q.isEmpty()) {
                b.append(b.isEmpty() ? "" : ", ").append("send to rank ").append(q.peek().op.peer())
                        .append(" (").append(q.peek().op.what()).append(')');
            }
        }
        for (ArrayDeque<Flow> q : rq) {
            if (!q.isEmpty()) {
                b.append(b.isEmpty() ? "" : ", ").append("receive from rank ").append(q.peek().op.peer())
                        .append(" (").append(q.peek().op.what()).append(')');
            }
        }
        return b.toString();
    }

    /** Checks a self-transfer list: every send to self needs a receive from self of the same size, in order. */
    public static void checkSelf(List<P2pOp> selfSends, List<P2pOp> selfRecvs, int rank) {
        if (selfSends.size() != selfRecvs.size()) {
            throw new JcclException(Result.INVALID_USAGE, "rank " + rank + ": " + selfSends.size()
                    + " send(s) to itself but "
                    + selfRecvs.size() + " receive(s) from itself in one group");
        }
        for (int i = 0; i < selfSends.size(); i++) {
            if (selfSends.get(i).bytes() != selfRecvs.get(i).bytes()) {
                throw new JcclException(Result.INVALID_USAGE, "rank " + rank + ": send to itself of "
                        + selfSends.get(i).bytes() + " bytes matched with a receive of " + selfRecvs.get(i).bytes());
            }
        }
    }
}
