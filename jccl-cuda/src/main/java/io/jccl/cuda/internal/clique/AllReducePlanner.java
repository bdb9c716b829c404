package io.jccl.cuda.internal.clique;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.AllReduceAlgorithm;
import io.jccl.cuda.CliqueOptions;

/**
 * Chooses the allReduce kernel and its grid for one call, from the message size, the number of GPUs, whether the
 * call is in place, and the {@link CliqueOptions}. Writes into a reusable {@link Plan} so a call allocates
 * nothing. Pure arithmetic: tested without a GPU.
 *
 * <p>Thread: confined to the clique's calling thread. Plays the role of NCCL's tuning step (topoGetAlgoInfo) for
 * the intra-node kernels, with measured thresholds instead of a cost model.
 */
public final class AllReducePlanner {
    /** Threads per block of every allReduce kernel (kThreads). */
    public static final int THREADS = 512;
    /** Packs each thread of the one-/two-shot kernels handles per loop iteration (UNROLL in the CUDA code). */
    static final int PACKS_PER_THREAD = 2;
    /** Bytes a ring channel should have at least before another channel is added. */
    static final long RING_MIN_BYTES_PER_CHANNEL = 1L << 20;

    /** A mutable plan, reused call after call. */
    public static final class Plan {
        private AllReduceAlgorithm algorithm;
        private int blocks;
        private long chunkElems;

        public AllReduceAlgorithm algorithm() {
            return algorithm;
        }

        /** Blocks in the grid (channels for the ring). */
        public int blocks() {
            return blocks;
        }

        /** Ring chunk in elements (0 for the other algorithms). */
        public long chunkElems() {
            return chunkElems;
        }

        @Override
        public String toString() {
            return algorithm.shortName() + " x" + blocks + (chunkElems > 0 ? " chunk " + chunkElems : "");
        }
    }

    private final CliqueOptions options;
    private final int nRanks;
    private final int blockLimit;

    /** {@code residentBlocks}: blocks of 512 threads that can surely run at once on one GPU (co-residency bound). */
    public AllReducePlanner(CliqueOptions options, int nRanks, int residentBlocks) {
        this.options = options;
        this.nRanks = nRanks;
        this.blockLimit = Math.max(1, Math.min(CliqueOptions.KERNEL_MAX_BLOCKS, residentBlocks));
    }

    /** The algorithm AUTO picks for {@code bytes} (in place or not). */
    public AllReduceAlgorithm choose(long bytes, boolean inPlace) {
        AllReduceAlgorithm forced = options.algorithm();
        if (forced != AllReduceAlgorithm.AUTO) {
            return forced;
        }
        // The one-shots move (N-1)·S per GPU: with more GPUs their useful range shrinks (reference §7).
        long scale = nRanks <= 2 ? 1 : nRanks * 32L;
        if (bytes <= options.llMaxBytes()) {
            return AllReduceAlgorithm.LL;
        }
        if (bytes <= options.pushMaxBytes() / scale) {
            return AllReduceAlgorithm.PUSH;
        }
        if (bytes <= options.oneShotMaxBytes() / scale) {
            return inPlace ? AllReduceAlgorithm.TWO_SHOT : AllReduceAlgorithm.ONE_SHOT;
        }
        if (bytes <= options.twoShotMaxBytes()) {
            return AllReduceAlgorithm.TWO_SHOT;
        }
        return AllReduceAlgorithm.RING;
    }

    /** Fills {@code plan} for {@code count} elements of {@code elemBytes} bytes. */
    public void plan(long count, int elemBytes, boolean inPlace, Plan plan) {
        long bytes = count * elemBytes;
        AllReduceAlgorithm a = choose(bytes, inPlace);
        if (a == AllReduceAlgorithm.ONE_SHOT && inPlace) {
            throw new JcclException(Result.INVALID_ARGUMENT, "the one-shot allReduce kernel cannot run in place "
                    + "(peers would read partly reduced data); use AUTO, TWO_SHOT, LL or RING for in-place calls");
        }
        if (a == AllReduceAlgorithm.LL && bytes > options.llMaxBytes()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "the LL allReduce kernel handles at most llMaxBytes = "
                    + options.llMaxBytes() + " bytes, got " + bytes + "; raise CliqueOptions.llMaxBytes");
        }
        if (a == AllReduceAlgorithm.PUSH && bytes > options.pushMaxBytes()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "the push allReduce kernel handles at most pushMaxBytes = "
                    + options.pushMaxBytes() + " bytes, got " + bytes + "; raise CliqueOptions.pushMaxBytes");
        }
        int limit = Math.min(blockLimit, options.maxBlocks());
        long chunk = 0;
        int blocks;
        switch (a) {
            case LL -> blocks = grid(ceilDiv(bytes, 8), THREADS, limit);
            case ONE_SHOT, PUSH -> blocks = grid(ceilDiv(bytes, 16), (long) THREADS * PACKS_PER_THREAD, limit);
            case TWO_SHOT -> blocks = grid(ceilDiv(ceilDiv(bytes, 16), nRanks), (long) THREADS * PACKS_PER_THREAD, limit);
            case RING -> {
                int channelLimit = Math.min(blockLimit, options.ringChannels());
                blocks = (int) Math.max(1, Math.min(channelLimit, bytes / RING_MIN_BYTES_PER_CHANNEL));
                chunk = options.ringSlotBytes() / elemBytes * options.ringChunkSteps();
            }
            default -> throw new IllegalStateException("no plan for " + a);
        }
        plan.algorithm = a;
        plan.blocks = blocks;
        plan.chunkElems = chunk;
    }

    private static int grid(long work, long perBlock, int limit) {
        return (int) Math.max(1, Math.min(limit, ceilDiv(work, perBlock)));
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
