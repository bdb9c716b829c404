package io.jccl.tools.perf;

/**
 * Algorithm and bus bandwidth of a measured call, with nccl-tests' definitions: algbw = bytes / time (GB/s with
 * 1 GB = 1e9 bytes), busbw = algbw × a per-collective factor that makes the figure comparable with the link
 * bandwidth whatever the rank count. Stateless; mirrors nccl-tests' {@code getBw} functions and PERFORMANCE.md.
 */
public final class BandwidthModel {
    private BandwidthModel() {
    }

    /** A bandwidth pair in GB/s. */
    public record Bandwidth(double algBwGBps, double busBwGBps) {
    }

    /** Bytes the algorithm bandwidth is computed from, for {@code paramCount} elements per call. */
    public static double algBytes(PerfCollective coll, long paramCount, int eltSize, int nRanks) {
        double bytes = (double) paramCount * eltSize;
        return switch (coll) {
            case ALL_REDUCE, BROADCAST, REDUCE, SEND_RECV -> bytes;
            case ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, GATHER, SCATTER -> bytes * nRanks;
        };
    }

    /**
     * busbw / algbw: 2(n-1)/n for allreduce, (n-1)/n for allgather, reducescatter, alltoall, gather, scatter, else 1.
     */
    public static double busFactor(PerfCollective coll, int nRanks) {
        return switch (coll) {
            case ALL_REDUCE -> 2.0 * (nRanks - 1) / nRanks;
            case ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, GATHER, SCATTER -> (double) (nRanks - 1) / nRanks;
            case BROADCAST, REDUCE, SEND_RECV -> 1.0;
        };
    }

    /** Both bandwidths for a call of {@code paramCount} elements that took {@code seconds} (0 when no time passed). */
    public static Bandwidth of(PerfCollective coll, long paramCount, int eltSize, int nRanks, double seconds) {
        double alg = seconds > 0 ? algBytes(coll, paramCount, eltSize, nRanks) / 1.0e9 / seconds : 0.0;
        return new Bandwidth(alg, alg * busFactor(coll, nRanks));
    }
}
