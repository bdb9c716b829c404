package io.jccl.internal.tuning;

/**
 * How many channels and threads a GPU operation gets: start from the communicator's channels and the protocol's
 * thread count, and drop channels (then halve threads, while a multiple of 128) while the message is smaller than
 * {@code channels × threads × threshold} bytes, so that small messages don't spread over idle blocks. Simple adds one
 * warp for the ring (sync) and four for the tree (split thread model); at least three warps run.
 *
 * <p>Thresholds (bytes per thread): LL 8 (×nRanks for Ring), LL128 8, Simple 64, or NCCL_THREAD_THRESHOLDS. Threads:
 * LL and Simple 512 (NCCL_NTHREADS), LL128 640 (NCCL_LL128_NTHREADS). Immutable; mirrors NCCL's threadThresholds /
 * maxThreads and the channel loop of its getAlgoInfo.
 */
final class ChannelPolicy {
    private static final int WARP = 32;
    private final long[][] thresholds = new long[Algorithm.COUNT][Protocol.COUNT];
    private final int[] maxThreads = new int[Protocol.COUNT];

    ChannelPolicy(int nRanks, TuningParams params) {
        for (int ai = 0; ai < Algorithm.COUNT; ai++) {
            Algorithm a = Algorithm.of(ai);
            thresholds[a.ordinal()][Protocol.LL.ordinal()] = 8;
            thresholds[a.ordinal()][Protocol.LL128.ordinal()] = 8;
            thresholds[a.ordinal()][Protocol.SIMPLE.ordinal()] = 64;
        }
        thresholds[Algorithm.RING.ordinal()][Protocol.LL.ordinal()] *= nRanks;
        long[] t = params.threadThresholds();
        if (t != null) {
            for (int p = 0; p < Protocol.COUNT; p++) {
                if (t[p] >= 0) {
                    thresholds[Algorithm.TREE.ordinal()][p] = t[p];
                }
                if (t[3 + p] >= 0) {
                    thresholds[Algorithm.RING.ordinal()][p] = t[3 + p];
                }
            }
        }
        maxThreads[Protocol.LL.ordinal()] = params.nThreads() > 0 ? params.nThreads() : 512;
        maxThreads[Protocol.SIMPLE.ordinal()] = params.nThreads() > 0 ? params.nThreads() : 512;
        maxThreads[Protocol.LL128.ordinal()] = params.ll128NThreads() > 0 ? params.ll128NThreads() : 640;
    }

    long threshold(Algorithm a, Protocol p) {
        return thresholds[a.ordinal()][p.ordinal()];
    }

    int maxThreads(Protocol p) {
        return maxThreads[p.ordinal()];
    }

    /** Channels in the low 16 bits, threads in the high 16 bits. */
    int choose(Algorithm a, Protocol p, long nBytes, int maxChannels) {
        int nc = Math.max(1, maxChannels);
        int nt = maxThreads[p.ordinal()];
        long threshold = thresholds[a.ordinal()][p.ordinal()];
        while (nBytes < (long) nc * nt * threshold) {
            if (nc >= 2) {
                nc--;
            } else if (nt % 128 == 0) {
                nt /= 2;
            } else {
                break;
            }
        }
        if (p == Protocol.SIMPLE) {
            if (a == Algorithm.RING) {
                nt += WARP;
            } else if (a == Algorithm.TREE) {
                nt += 4 * WARP;
            }
        }
        nt = nt / WARP < 3 ? 3 * WARP : nt;
        return (nt << 16) | nc;
    }
}
