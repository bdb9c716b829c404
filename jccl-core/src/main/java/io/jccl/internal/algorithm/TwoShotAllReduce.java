package io.jccl.internal.algorithm;

import io.jccl.Collective;
import io.jccl.internal.base.Fingerprint;
import io.jccl.internal.transport.shm.ShmPeerArea;

import java.lang.foreign.MemorySegment;

/**
 * Two-shot allReduce for medium messages on a single-host communicator, through the shared areas of
 * {@link OneShotAllReduce}: the input is cut into chunks the area holds, each chunk into one slice per rank. Per
 * chunk, every rank copies the slices its peers own into its area and publishes (reduce-scatter), reduces its own
 * slice from its own input and the peers' copies, in rank order, into its area and publishes again (so every rank
 * gets the same bits for a slice: only its owner computes it), then copies every slice from its owner's area into the
 * output (all-gather). Against one-shot, a rank copies (n-1)/n of its input instead of all of it and reduces 1/n of
 * the elements instead of all; against the ring, it synchronises twice per chunk instead of once per slot and step.
 *
 * <p>Sequence numbers come from the communicator's one-shot counter: a rank reads a peer's buffer of sequence s before
 * it publishes s + 1, so the area's two alternating buffers are never overwritten while read.
 *
 * <p>Owned by: channel 0's thread. Mirrors: the two-shot (reduce-scatter + all-gather) allReduce of NCCL's symmetric
 * kernels and of TensorRT-LLM / vLLM custom allreduce, done in host memory.
 */
public final class TwoShotAllReduce extends AreaAllReduce {
    /** Slices start on cache lines. */
    private static final long SLICE_ALIGN_BYTES = 64;
    private final int rank;
    private final int nRanks;
    private final RankOrderReduce reduce;

    /** @param seqCounter the communicator's one-shot sequence counter (one element, shared with one-shot) */
    public TwoShotAllReduce(ShmPeerArea area, long[] seqCounter) {
        super(area, seqCounter, "two-shot");
        this.rank = area.rank();
        this.nRanks = area.nRanks();
        this.reduce = new RankOrderReduce(nRanks);
    }

    /** Elements of one slice of a chunk: the area holds nRanks slices, each a whole number of cache lines. */
    static long sliceElements(long areaBytes, int nRanks, int elementBytes) {
        long sliceBytes = areaBytes / nRanks / SLICE_ALIGN_BYTES * SLICE_ALIGN_BYTES;
        return sliceBytes / elementBytes;
    }

    @Override
    public void run(ChannelContext ctx) {
        int esz = type.sizeBytes();
        long perSlice = sliceElements(area.maxBytes(), nRanks, esz);
        long sliceBytes = perSlice * esz;
        long perChunk = perSlice * nRanks;
        long fp = Fingerprint.variant(Fingerprint.of(Collective.ALL_REDUCE, count, type, op.kind(), -1), 1);
        boolean pre = red.hasPreOp();
        for (long lo = 0; lo < count; lo += perChunk) {
            // this chunk's slices: slice p covers [lo + p*per, lo + p*per + len(p)), per = ceil(chunk / n)
            long chunk = Math.min(perChunk, count - lo);
            long per = (chunk + nRanks - 1) / nRanks;
            long s1 = nextSeq();
            MemorySegment in = area.mine(s1);
            for (int p = 0; p < nRanks; p++) {
                long len = sliceLen(chunk, per, p);
                if (len > 0 && (p != rank || pre)) {
                    red.prepare(send, (lo + p * per) * esz, in, p * sliceBytes, len, false);
                }
            }
            publishAndAwaitAll(ctx, s1, fp);
            long s2 = nextSeq();
            MemorySegment out = area.mine(s2);
            long mine = sliceLen(chunk, per, rank);
            if (mine > 0) {
                long outOff = rank * sliceBytes;
                long myIn = (lo + rank * per) * esz;
                // a shared area exists only with 2 ranks or more
                for (int p = 0; p < nRanks; p++) {
                    reduce.source(p, source(p, s1, pre), sourceOff(p, outOff, myIn, pre));
                }
                reduce.run(red, nRanks, out, outOff, mine, true);
            }
            publishAndAwaitAll(ctx, s2, fp);
            for (int k = 0; k < nRanks; k++) {
                int p = (rank + k) % nRanks;
                long len = sliceLen(chunk, per, p);
                if (len > 0) {
                    MemorySegment.copy(area.data(p, s2), p * sliceBytes, recv, (lo + p * per) * esz, len * esz);
                }
            }
        }
    }

    /**
     * Where rank p's contribution to this rank's slice is: its copy in p's area, or this rank's own input (unless a
     * pre-op made this rank copy its own slice too).
     */
    private MemorySegment source(int p, long s1, boolean pre) {
        return p == rank && !pre ? send : area.data(p, s1);
    }

    private long sourceOff(int p, long areaOff, long inputOff, boolean pre) {
        return p == rank && !pre ? inputOff : areaOff;
    }

    private static long sliceLen(long chunk, long per, int p) {
        return Math.max(0, Math.min(per, chunk - p * per));
    }
}
