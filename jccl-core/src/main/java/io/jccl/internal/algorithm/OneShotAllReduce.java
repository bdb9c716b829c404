package io.jccl.internal.algorithm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.internal.reduce.Reducer;
import io.jccl.internal.transport.Connections;
import io.jccl.internal.transport.shm.ShmPeerArea;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * One-shot allReduce for small messages on a single-host communicator: every rank publishes preOp(its input) in its
 * shared area, then reads every rank's area and reduces them itself, in rank order 0..n-1, so every rank computes the
 * bit-identical result with a single synchronisation (no ring steps, no round trips).
 *
 * <p>Owned by: channel 0's thread. Mirrors: one-shot allReduce of NCCL's symmetric kernels / vLLM's custom allreduce
 * (each GPU reads all peers' buffers), done in host memory.
 */
public final class OneShotAllReduce extends Work {
    private final ShmPeerArea area;
    private final long[] seqCounter;
    private long callSeq;
    private MemorySegment send;
    private MemorySegment recv;
    private long count;
    private DataType type;
    private RedOp op;
    private Reducer red;

    /** @param seqCounter the communicator's one-shot sequence counter (one element, shared by all instances) */
    public OneShotAllReduce(ShmPeerArea area, long[] seqCounter) {
        this.area = area;
        this.seqCounter = seqCounter;
    }

    public OneShotAllReduce set(long callSeq, MemorySegment send, MemorySegment recv, long count, DataType type,
                                RedOp op, Reducer red) {
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
    public String description() {
        return CollArgs.describe(Collective.ALL_REDUCE, callSeq, count, type, op, -1, -1) + " [one-shot]";
    }

    @Override
    public int nChannels() {
        return 1;
    }

    @Override
    public void needs(List<Connections.Need> out) {
        // uses the shared area made at init
    }

    @Override
    public long bytes() {
        return count * type.sizeBytes();
    }

    @Override
    public void run(ChannelContext ctx) {
        long s = ++seqCounter[0];
        int n = area.nRanks();
        int c = (int) count;
        red.prepare(send, 0, area.mine(s), 0, c, false);
        long fp = Fingerprint.of(Collective.ALL_REDUCE, count, type, op.kind(), -1);
        int bad = area.publishAndAwaitAll(s, fp, this);
        if (bad >= 0) {
            throw Fingerprint.mismatch(ctx.rank(), description(), bad, area.fingerprint(bad, s));
        }
        red.combine(area.data(0, s), 0, area.data(1, s), 0, recv, 0, c);
        for (int r = 2; r < n; r++) {
            red.combine(recv, 0, area.data(r, s), 0, recv, 0, c);
        }
        if (red.hasPostOp()) {
            red.finish(recv, 0, recv, 0, c);
        }
    }
}
