package io.jccl.internal.topology.search;

/**
 * The per-channel bandwidths (GB/s) the search tries, from high to low, for intra-node and inter-node graphs and per
 * GPU generation. They are not in the reference notes; the values are recalled from NCCL's src/graph/search.cc
 * ({@code speedArrayIntra/Inter}, {@code sm90SpeedArray*}, {@code sm100SpeedArray*}) and should be checked against
 * real NCCL graph dumps (the 2×H200 dump in the test resources agrees: ring 12×30 after 6×60, tree 12×60).
 *
 * <p>Constants only.
 */
final class SpeedArrays {
    private SpeedArrays() {
    }

    private static final double[] INTRA = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
    private static final double[] INTER = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0,
            4.0, 3.0, 2.4, 1.2, 0.24, 0.12};
    private static final double[] SM90_INTRA = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
    private static final double[] SM90_INTER = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0,
            3.0, 2.4, 1.2, 0.24, 0.12};
    private static final double[] SM100_INTRA = {90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
    private static final double[] SM100_INTER = {47.9, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0,
            3.0, 2.4, 1.2, 0.24, 0.12};

    /**
     * The array for a search: inter-node when the system has NET nodes, by the lowest compute capability of its GPUs.
     * A copy; callers may not change NCCL's table.
     */
    public static double[] forSearch(boolean inter, int minCompCap) {
        double[] a;
        if (minCompCap >= 100) {
            a = inter ? SM100_INTER : SM100_INTRA;
        } else if (minCompCap >= 90) {
            a = inter ? SM90_INTER : SM90_INTRA;
        } else {
            a = inter ? INTER : INTRA;
        }
        return a.clone();
    }
}
