package io.jccl.internal.enqueue;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;

import java.lang.foreign.MemorySegment;

/**
 * Validates a call's arguments before anything is enqueued (NCCL's {@code ArgsCheck}): counts, ranks, and that each
 * buffer this rank will touch exists, is large enough and (for outputs) writable. Buffers a rank does not use (the
 * send buffer of a non-root broadcast, ...) may be null. Errors are INVALID_ARGUMENT naming the rank and the call.
 * Owned by: stateless.
 */
public final class ArgsCheck {
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
        switch (coll) {
            case ALL_REDUCE -> { input(send, b, rank, call); output(recv, b, rank, call); }
            case BROADCAST -> { if (isRoot) { input(send, b, rank, call); } output(recv, b, rank, call); }
            case REDUCE -> { input(send, b, rank, call); if (isRoot) { output(recv, b, rank, call); } }
            case ALL_GATHER -> { input(send, b, rank, call); output(recv, nb, rank, call); }
            case REDUCE_SCATTER -> { input(send, nb, rank, call); output(recv, b, rank, call); }
            case ALL_TO_ALL -> { input(send, nb, rank, call); output(recv, nb, rank, call); }
            case GATHER -> { input(send, b, rank, call); if (isRoot) { output(recv, nb, rank, call); } }
            case SCATTER -> { if (isRoot) { input(send, nb, rank, call); } output(recv, b, rank, call); }
            case SEND -> input(send, b, rank, call);
            case RECV -> output(recv, b, rank, call);
            case BARRIER, SEND_RECV -> { }
        }
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
            throw bad(rank, call, "receive buffer is read-only");
        }
    }

    private static JcclException bad(int rank, String call, String what) {
        return new JcclException(Result.INVALID_ARGUMENT, "rank " + rank + ": " + call + ": " + what);
    }
}
