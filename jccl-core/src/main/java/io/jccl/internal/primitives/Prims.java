package io.jccl.internal.primitives;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.reduce.Reducer;
import io.jccl.internal.transport.RecvLane;
import io.jccl.internal.transport.SendLane;

import java.lang.foreign.MemorySegment;

/**
 * The data-moving primitives algorithms are written in (NCCL's prims: send, recv, copySend, recvCopySend,
 * recvReduceSend, recvReduceCopy, recvReduceCopySend), each moving one step (at most one slot) over a connector.
 * Offsets are in bytes, counts in elements of the reducer's type. Every received step's size is checked against what
 * this rank expects, so ranks that called different operations fail with a clear error instead of mixing data.
 *
 * <p>Owned by: the one thread running a channel (one instance per channel). Mirrors: NCCL's Primitives class
 * (prims_simple.h) on the Simple protocol.
 */
public final class Prims {
    private final int rank;
    private final int channel;
    private Object op = "";
    private long tag;

    public Prims(int rank, int channel) {
        this.rank = rank;
        this.channel = channel;
    }

    /** Names the operation being run (its {@code toString()} is used only in error messages). */
    public void begin(Object operation) {
        begin(operation, 0);
    }

    /** Names the operation and the fingerprint every step it sends carries and every step it receives must carry. */
    public void begin(Object operation, long fingerprint) {
        this.op = operation;
        this.tag = fingerprint;
    }

    /** Sends {@code bytes} of {@code src}. */
    public void send(SendLane s, MemorySegment src, long srcOff, int bytes) {
        MemorySegment slot = s.acquire();
        MemorySegment.copy(src, srcOff, slot, 0, bytes);
        s.post(bytes, tag);
    }

    /** Receives {@code bytes} into {@code dst}. */
    public void recv(RecvLane r, MemorySegment dst, long dstOff, int bytes) {
        MemorySegment slot = r.await(bytes);
        check(r, bytes);
        MemorySegment.copy(slot, 0, dst, dstOff, bytes);
        r.release();
    }

    /** dst = src, and sends it. */
    public void copySend(SendLane s, MemorySegment src, long srcOff, MemorySegment dst, long dstOff, int bytes) {
        MemorySegment slot = s.acquire();
        MemorySegment.copy(src, srcOff, slot, 0, bytes);
        MemorySegment.copy(src, srcOff, dst, dstOff, bytes);
        s.post(bytes, tag);
    }

    /** dst = received, and forwards it. */
    public void recvCopySend(RecvLane r, SendLane s, MemorySegment dst, long dstOff, int bytes) {
        MemorySegment in = r.await(bytes);
        check(r, bytes);
        MemorySegment out = s.acquire();
        MemorySegment.copy(in, 0, out, 0, bytes);
        MemorySegment.copy(in, 0, dst, dstOff, bytes);
        s.post(bytes, tag);
        r.release();
    }

    /** Sends preOp(src) (this rank's first contribution). */
    public void prepareSend(SendLane s, Reducer red, MemorySegment src, long srcOff, int count) {
        MemorySegment slot = s.acquire();
        red.prepare(src, srcOff, slot, 0, count, false);
        s.post(count * red.type().sizeBytes(), tag);
    }

    /** Sends received ⊕ preOp(src). */
    public void recvReduceSend(RecvLane r, SendLane s, Reducer red, MemorySegment src, long srcOff, int count) {
        int bytes = count * red.type().sizeBytes();
        MemorySegment in = r.await(bytes);
        check(r, bytes);
        MemorySegment out = s.acquire();
        red.accumulate(in, 0, src, srcOff, out, 0, count, false);
        s.post(bytes, tag);
        r.release();
    }

    /** dst = postOp(received ⊕ preOp(src)) when {@code last}, and sends dst. */
    public void recvReduceCopySend(RecvLane r, SendLane s, Reducer red, MemorySegment src, long srcOff,
                                   MemorySegment dst, long dstOff, int count, boolean last) {
        int bytes = count * red.type().sizeBytes();
        MemorySegment in = r.await(bytes);
        check(r, bytes);
        MemorySegment out = s.acquire();
        red.accumulate(in, 0, src, srcOff, dst, dstOff, count, last);
        MemorySegment.copy(dst, dstOff, out, 0, bytes);
        s.post(bytes, tag);
        r.release();
    }

    /** dst = postOp(received ⊕ preOp(src)) when {@code last}. */
    public void recvReduceCopy(RecvLane r, Reducer red, MemorySegment src, long srcOff, MemorySegment dst, long dstOff,
                               int count, boolean last) {
        int bytes = count * red.type().sizeBytes();
        MemorySegment in = r.await(bytes);
        check(r, bytes);
        red.accumulate(in, 0, src, srcOff, dst, dstOff, count, last);
        r.release();
    }

    /**
     * Tree reduce of a middle rank: folds the step of each of the first {@code nKids} children and preOp(src) into one
     * step and sends it to the parent. Every lane must be ready (callers poll {@code ready()} first).
     */
    public void recvReduceSend(RecvLane[] kids, int nKids, SendLane up, Reducer red, MemorySegment src, long srcOff,
                               int count) {
        int bytes = count * red.type().sizeBytes();
        MemorySegment out = up.acquire();
        fold(kids, nKids, red, src, srcOff, out, 0, count, bytes, false);
        up.post(bytes, tag);
        releaseAll(kids, nKids);
    }

    /**
     * Tree root: dst = postOp(children's steps ⊕ preOp(src)), then sends dst to every child (the reduce and the start
     * of the broadcast in one step, as NCCL's split tree root does).
     */
    public void recvReduceCopySend(RecvLane[] kids, int nKids, SendLane[] downs, int nDowns, Reducer red,
                                   MemorySegment src, long srcOff, MemorySegment dst, long dstOff, int count) {
        int bytes = count * red.type().sizeBytes();
        if (nKids == 0) {
            red.prepare(src, srcOff, dst, dstOff, count, true);
        } else {
            fold(kids, nKids, red, src, srcOff, dst, dstOff, count, bytes, true);
        }
        for (int k = 0; k < nDowns; k++) {
            MemorySegment out = downs[k].acquire();
            MemorySegment.copy(dst, dstOff, out, 0, bytes);
            downs[k].post(bytes, tag);
        }
        releaseAll(kids, nKids);
    }

    /** Tree broadcast of a middle rank: dst = received, and forwards it to each of the first {@code n} children. */
    public void recvCopySend(RecvLane r, SendLane[] outs, int n, MemorySegment dst, long dstOff, int bytes) {
        MemorySegment in = r.await(bytes);
        check(r, bytes);
        MemorySegment.copy(in, 0, dst, dstOff, bytes);
        for (int k = 0; k < n; k++) {
            MemorySegment out = outs[k].acquire();
            MemorySegment.copy(in, 0, out, 0, bytes);
            outs[k].post(bytes, tag);
        }
        r.release();
    }

    /**
     * dst = kid0 ⊕ preOp(src) ⊕ kid1 ⊕ ...; postOp when {@code last}. src is read before dst is written, so dst may be
     * src (an in-place root).
     */
    private void fold(RecvLane[] kids, int nKids, Reducer red, MemorySegment src, long srcOff, MemorySegment dst,
                      long dstOff, int count, int bytes, boolean last) {
        MemorySegment in = kids[0].await(bytes);
        check(kids[0], bytes);
        red.accumulate(in, 0, src, srcOff, dst, dstOff, count, last && nKids == 1);
        for (int k = 1; k < nKids; k++) {
            in = kids[k].await(bytes);
            check(kids[k], bytes);
            red.combine(in, 0, dst, dstOff, dst, dstOff, count);
        }
        if (last && nKids > 1 && red.hasPostOp()) {
            red.finish(dst, dstOff, dst, dstOff, count);
        }
    }

    private static void releaseAll(RecvLane[] kids, int nKids) {
        for (int k = 0; k < nKids; k++) {
            kids[k].release();
        }
    }

    private void check(RecvLane r, int expected) {
        long theirs = r.tag();
        if (tag != 0 && theirs != 0 && theirs != tag) {
            throw io.jccl.internal.base.Fingerprint.mismatch(rank, String.valueOf(op), r.peer(), theirs);
        }
        int got = r.size();
        if (got != expected) {
            throw mismatch(r.peer(), expected, got);
        }
    }

    /** The fingerprint this channel's current operation tags its steps with. */
    public long tag() {
        return tag;
    }

    /** The error for a step whose size differs from what this rank expects. */
    public JcclException mismatch(int peer, long expected, long got) {
        return new JcclException(Result.INVALID_USAGE, "rank " + rank + " channel " + channel + " in " + op
                + ": received " + got + " bytes from rank " + peer + " where it expected " + expected
                + "; the ranks called different operations, counts or types (every rank must make the same calls in "
                        + "the same order)");
    }

    public int rank() {
        return rank;
    }

    public int channel() {
        return channel;
    }
}
