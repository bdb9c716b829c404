package io.jccl.internal.enqueue;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;

import java.lang.foreign.MemorySegment;

/**
 * Validates a call's arguments before anything is enqueued (NCCL's {@code ArgsCheck}): counts, ranks, and that each
 * buffer this rank will touch exists, is large enough, (for outputs) writable, still open and reachable from the
 * channel threads (not confined to one thread), and that the send and receive buffers do not overlap except in the
 * collective's in-place layout ({@link Overlap}). Buffers a rank does not use (the send buffer of a non-root
 * broadcast, ...) may be null. Errors are INVALID_ARGUMENT naming the rank and the call. Every check is a few field
 * reads: nothing is allocated. Owned by: stateless.
 */
public final class ArgsCheck {
    /** A thread that owns no arena: a segment it cannot access is confined to some other thread. */
    private static final Thread NOT_AN_OWNER = Thread.ofPlatform().unstarted(() -> { });

    private ArgsCheck() {
    }

    /** Which buffers a call touches on this rank, and their sizes in elements. */
    public static void check(Collective coll, MemorySegment send, MemorySegment recv, long count, DataType type,
                             RedOp op, int root, int peer, int rank, int nRanks) {
        String call = coll.ncclName();
        if (type == null) {
            throw bad(rank, call, "data type is null");
        }
        if (count < 0) {
            throw bad(rank, call, "count is negative: " + count);
        }
        if (coll.reduces() && op == null) {
            throw bad(rank, call, "reduction op is null");
        }
        if (coll.rooted() && (root < 0 || root >= nRanks)) {
            throw bad(rank, call, "root " + root + " is not a rank of this " + nRanks + "-rank communicator");
        }
        if ((coll == Collective.SEND || coll == Collective.RECV) && (peer < 0 || peer >= nRanks)) {
            throw bad(rank, call, "peer " + peer + " is not a rank of this " + nRanks + "-rank communicator");
        }
        long b = bytes(count, type, rank, call);
        long nb = multiply(b, nRanks, rank, call);
        boolean isRoot = rank == root;
        long in;  // bytes this rank reads from send (0: unused)
        long out; // bytes this rank writes to recv (0: unused)
        switch (coll) {
            case ALL_REDUCE -> { in = b; out = b; }
            case BROADCAST -> { in = isRoot ? b : 0; out = b; }
            case REDUCE -> { in = b; out = isRoot ? b : 0; }
            case ALL_GATHER -> { in = b; out = nb; }
            case REDUCE_SCATTER -> { in = nb; out = b; }
            case ALL_TO_ALL -> { in = nb; out = nb; }
            case GATHER -> { in = b; out = isRoot ? nb : 0; }
            case SCATTER -> { in = isRoot ? nb : 0; out = b; }
            case SEND -> { in = b; out = 0; }
            case RECV -> { in = 0; out = b; }
            default -> { in = 0; out = 0; } // BARRIER, SEND_RECV: no user buffers
        }
        input(send, in, rank, call);
        output(recv, out, rank, call);
        Overlap.check(coll, send, in, recv, out, rank * b, rank, call);
    }

    private static long bytes(long count, DataType type, int rank, String call) {
        try {
            return Math.multiplyExact(count, (long) type.sizeBytes());
        } catch (ArithmeticException e) {
            throw bad(rank, call, "count " + count + " overflows");
        }
    }

    private static long multiply(long b, int n, int rank, String call) {
        try {
            return Math.multiplyExact(b, (long) n);
        } catch (ArithmeticException e) {
            throw bad(rank, call, "buffer size overflows");
        }
    }

    private static void input(MemorySegment s, long need, int rank, String call) {
        if (need == 0) {
            return;
        }
        if (s == null) {
            throw bad(rank, call, "send buffer is null");
        }
        if (s.byteSize() < need) {
            throw bad(rank, call, "send buffer has " + s.byteSize() + " bytes, needs " + need);
        }
        reachable(s, "send", rank, call);
    }

    private static void output(MemorySegment s, long need, int rank, String call) {
        if (need == 0) {
            return;
        }
        if (s == null) {
            throw bad(rank, call, "receive buffer is null");
        }
        if (s.byteSize() < need) {
            throw bad(rank, call, "receive buffer has " + s.byteSize() + " bytes, needs " + need);
        }
        if (s.isReadOnly()) {
            throw bad(rank, call, "receive buffer is read-only; JCCL writes the result into it");
        }
        reachable(s, "receive", rank, call);
    }

    /** The channel threads can touch {@code s}: its arena is open and not confined to one thread. */
    private static void reachable(MemorySegment s, String role, int rank, String call) {
        if (!s.scope().isAlive()) {
            throw bad(rank, call, role + " buffer is no longer valid: its arena was closed");
        }
        if (!s.isAccessibleBy(NOT_AN_OWNER)) {
            throw bad(rank, call, role + " buffer belongs to a confined arena (Arena.ofConfined()), which only its "
                    + "owner thread may touch, and JCCL's channel threads read and write buffers: allocate it from "
                    + "Arena.ofShared(), Arena.ofAuto() or Arena.global(), or with comm.allocate()");
        }
    }

    static JcclException bad(int rank, String call, String what) {
        return new JcclException(Result.INVALID_ARGUMENT, "rank " + rank + ": " + call + ": " + what);
    }
}
