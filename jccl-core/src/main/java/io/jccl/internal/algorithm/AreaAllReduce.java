package io.jccl.internal.algorithm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.internal.base.Fingerprint;
import io.jccl.internal.reduce.Reducer;
import io.jccl.internal.transport.Connections;
import io.jccl.internal.transport.shm.ShmPeerArea;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * What the allReduce algorithms that synchronise through the shared areas (one-shot, two-shot, registered) have in
 * common: the call's arguments, one channel, no connectors, and the fingerprint-checked publish-and-wait on the
 * communicator's one-shot sequence counter.
 *
 * <p>Owned by: channel 0's thread (reusable instances are set again for every call). Mirrors: the symmetric-memory
 * allReduce kernels of NCCL, in host memory.
 */
abstract sealed class AreaAllReduce extends Work permits OneShotAllReduce, TwoShotAllReduce, RegisteredAllReduce {
    protected final ShmPeerArea area;
    protected final long[] seqCounter;
    private final String tag;
    protected long callSeq;
    protected MemorySegment send;
    protected MemorySegment recv;
    protected long count;
    protected DataType type;
    protected RedOp op;
    protected Reducer red;

    /** @param tag the name descriptions end with, e.g. "one-shot" */
    AreaAllReduce(ShmPeerArea area, long[] seqCounter, String tag) {
        this.area = area;
        this.seqCounter = seqCounter;
        this.tag = " [" + tag + "]";
    }

    /** Sets the call this instance runs next (instances are reused call after call); returns this. */
    public final Work set(long callSeq, MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op,
                          Reducer red) {
        this.callSeq = callSeq;
        this.send = send;
        this.recv = recv;
        this.count = count;
        this.type = type;
        this.op = op;
        this.red = red;
        return this;
    }

    @Override
    public final String description() {
        return CollArgs.describe(Collective.ALL_REDUCE, callSeq, count, type, op, -1, -1) + tag;
    }

    @Override
    public final int nChannels() {
        return 1;
    }

    @Override
    public final void needs(List<Connections.Need> out) {
        // uses the shared area made at init
    }

    @Override
    public final long bytes() {
        return count * type.sizeBytes();
    }

    /** The next sequence number of the communicator's shared areas (its data goes to {@code area.mine(seq)}). */
    final long nextSeq() {
        return ++seqCounter[0];
    }

    /**
     * Publishes {@code seq} with {@code fingerprint} and waits for every rank's; a rank whose fingerprint differs
     * (another call, or the same call through another algorithm) fails the call, naming both.
     */
    final void publishAndAwaitAll(ChannelContext ctx, long seq, long fingerprint) {
        int bad = area.publishAndAwaitAll(seq, fingerprint, this);
        if (bad >= 0) {
            throw Fingerprint.mismatch(ctx.rank(), description(), fingerprint, bad,
                    area.fingerprint(bad, seq));
        }
    }
}
