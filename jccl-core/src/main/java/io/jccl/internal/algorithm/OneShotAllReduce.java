package io.jccl.internal.algorithm;

import io.jccl.Collective;
import io.jccl.internal.base.Fingerprint;
import io.jccl.internal.transport.shm.ShmPeerArea;

/**
 * One-shot allReduce for small messages on a single-host communicator: every rank publishes preOp(its input) in its
 * shared area, then reads every rank's area and reduces them itself, in rank order 0..n-1, so every rank computes the
 * bit-identical result with a single synchronisation (no ring steps, no round trips).
 *
 * <p>Owned by: channel 0's thread. Mirrors: one-shot allReduce of NCCL's symmetric kernels / vLLM's custom allreduce
 * (each GPU reads all peers' buffers), done in host memory.
 */
public final class OneShotAllReduce extends AreaAllReduce {
    private final RankOrderReduce reduce;

    /** @param seqCounter the communicator's one-shot sequence counter (one element, shared by all instances) */
    public OneShotAllReduce(ShmPeerArea area, long[] seqCounter) {
        super(area, seqCounter, "one-shot");
        this.reduce = new RankOrderReduce(area.nRanks());
    }

    @Override
    public void run(ChannelContext ctx) {
        long s = nextSeq();
        int n = area.nRanks();
        int c = (int) count;
        red.prepare(send, 0, area.mine(s), 0, c, false);
        publishAndAwaitAll(ctx, s, Fingerprint.of(Collective.ALL_REDUCE, count, type, op.kind(), -1));
        for (int r = 0; r < n; r++) {
            reduce.source(r, area.data(r, s), 0);
        }
        reduce.run(red, n, recv, 0, c, true);
    }
}
