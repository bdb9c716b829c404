package io.jccl.internal.algorithm;

import io.jccl.internal.primitives.Prims;
import io.jccl.internal.reduce.Reducer;
import io.jccl.internal.transport.Connections;
import io.jccl.internal.transport.RecvLane;
import io.jccl.internal.transport.SendLane;

import java.lang.foreign.MemorySegment;

/**
 * One tree's part of a tree allReduce on one channel: a contiguous element range cut into chunks, with two
 * pipelines that advance independently: reduce (children → this rank → parent) and broadcast (parent → this rank →
 * children). The root runs one fused pipeline (reduce the children's chunk, send the result down). A step is only
 * taken when every connector it touches is ready, so the channel's runner can interleave the pipelines of both trees
 * without ever blocking one on the other: chunk k+1 goes up while chunk k comes down.
 *
 * <p>Owned by: the thread running the channel, for one call. Mirrors: the two thread groups of NCCL's runTreeSplit
 * (all_reduce.h) folded into one polling loop.
 */
final class TreePipe {
    private final Tree tree;
    private final Prims prims;
    private final Reducer red;
    private final MemorySegment send;
    private final MemorySegment recv;
    private final int esz;
    private final long base;
    private final long len;
    private final long chunk;
    private final int nChunks;
    private final RecvLane fromUp;
    private final SendLane toUp;
    private final RecvLane[] fromKids;
    private final SendLane[] toKids;
    private final int nKids;
    private int upNext;
    private int downNext;

    /**
     * @param base  first element of the range
     * @param len   elements in the range (more than 0)
     * @param chunk elements per step (at most a slot)
     */
    TreePipe(Tree tree, Connections conns, Prims prims, Reducer red, MemorySegment send, MemorySegment recv, long base,
             long len, long chunk) {
        this.tree = tree;
        this.prims = prims;
        this.red = red;
        this.send = send;
        this.recv = recv;
        this.esz = red.type().sizeBytes();
        this.base = base;
        this.len = len;
        this.chunk = chunk;
        this.nChunks = (int) ((len + chunk - 1) / chunk);
        int cc = tree.connChannel();
        this.nKids = tree.nDown();
        this.fromKids = new RecvLane[nKids];
        this.toKids = new SendLane[nKids];
        for (int k = 0; k < nKids; k++) {
            fromKids[k] = conns.recv(cc, tree.down()[k]);
            toKids[k] = conns.send(cc, tree.down()[k]);
        }
        this.fromUp = tree.isRoot() ? null : conns.recv(cc, tree.up());
        this.toUp = tree.isRoot() ? null : conns.send(cc, tree.up());
        this.downNext = tree.isRoot() ? nChunks : 0;
    }

    boolean done() {
        return upNext == nChunks && downNext == nChunks;
    }

    /** Takes every step that can be taken now without waiting; returns whether any was. */
    boolean progress() {
        boolean moved = false;
        while (upNext < nChunks && upReady()) {
            up(upNext++);
            moved = true;
        }
        while (downNext < upNext && downReady()) {
            down(downNext++);
            moved = true;
        }
        return moved;
    }

    /** True when a step could be taken now (re-checked before the runner parks). */
    boolean mayMove() {
        return upNext < nChunks && upReady() || downNext < upNext && downReady();
    }

    private boolean upReady() {
        for (int k = 0; k < nKids; k++) {
            if (!fromKids[k].ready()) {
                return false;
            }
        }
        if (toUp != null) {
            return toUp.ready();
        }
        for (int k = 0; k < nKids; k++) {
            if (!toKids[k].ready()) {
                return false;
            }
        }
        return true;
    }

    private boolean downReady() {
        if (!fromUp.ready()) {
            return false;
        }
        for (int k = 0; k < nKids; k++) {
            if (!toKids[k].ready()) {
                return false;
            }
        }
        return true;
    }

    private void up(int i) {
        long first = base + i * chunk;
        int n = (int) Math.min(chunk, base + len - first);
        long off = first * esz;
        if (toUp == null) {
            prims.recvReduceCopySend(fromKids, nKids, toKids, nKids, red, send, off, recv, off, n);
        } else if (nKids == 0) {
            prims.prepareSend(toUp, red, send, off, n);
        } else {
            prims.recvReduceSend(fromKids, nKids, toUp, red, send, off, n);
        }
    }

    private void down(int i) {
        long first = base + i * chunk;
        int bytes = (int) Math.min(chunk, base + len - first) * esz;
        long off = first * esz;
        if (nKids == 0) {
            prims.recv(fromUp, recv, off, bytes);
        } else {
            prims.recvCopySend(fromUp, toKids, nKids, recv, off, bytes);
        }
    }

    /** Which peers this pipeline still waits for, for a timeout message. */
    String waitingFor() {
        return "tree " + tree + ": chunk " + upNext + "/" + nChunks + " up, " + downNext + "/" + nChunks + " down";
    }
}
