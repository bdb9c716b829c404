package io.jccl.internal.tuning;

/**
 * NCCL's default tuning constants (reference notes, Appendix A, from src/tuning/cost_model.cc): base latencies per
 * algorithm and protocol (µs), per-hop latencies per hardware kind, and bandwidth caps per GPU generation (Volta,
 * Ampere, Hopper, Blackwell) and node count (1, 2, 4+ nodes). Tables are indexed by enum ordinals.
 *
 * @param baseLatUs          [algorithm][protocol]
 * @param hwLatUs            [hw][algorithm][protocol]
 * @param llMaxBws           [index1][nodes index]: LL bandwidth cap; index1 = GPU generation on one node, else CPU
 *                           vendor (0 Intel, 1 AMD)
 * @param perChMaxRingLL128  [generation][nodes index]
 * @param perChMaxTreeLL128  [generation][nodes index]
 * @param perChMaxTree       [generation][nodes index]
 * @param perChMaxNvlsTree   [generation][nodes index]
 * @param treeCorrection     [protocol][log2(bytes/64)], 24 entries (64 B .. 512 MB)
 *
 * <p>Immutable by convention: arrays are shared, never modify them.
 */
record TunerConstants(double[][] baseLatUs, double[][][] hwLatUs, double[][] llMaxBws,
                             double[][] perChMaxRingLL128, double[][] perChMaxTreeLL128, double[][] perChMaxTree,
                             double[][] perChMaxNvlsTree, double[][] treeCorrection) {

    private static final TunerConstants DEFAULTS = new TunerConstants(
            new double[][] {
                {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}},
            new double[][][] {
                {{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
                {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
                {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}},
            new double[][] {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}},
            new double[][] {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}},
            new double[][] {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}},
            new double[][] {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}},
            new double[][] {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}},
            new double[][] {
                {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0,
                        1.0},
                {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0,
                        1.0},
                {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}});

    /** NCCL's defaults. */
    public static TunerConstants defaults() {
        return DEFAULTS;
    }

    public double baseLat(Algorithm a, Protocol p) {
        return baseLatUs[a.ordinal()][p.ordinal()];
    }

    public double hwLat(HwKind hw, Algorithm a, Protocol p) {
        return hwLatUs[hw.ordinal()][a.ordinal()][p.ordinal()];
    }

    /** GPU generation index: Blackwell (≥100) 3, Hopper (≥90) 2, Ampere (≥80) 1, else Volta 0. */
    public static int compCapIndex(int compCap) {
        return compCap >= 100 ? 3 : compCap >= 90 ? 2 : compCap >= 80 ? 1 : 0;
    }

    /** Node-count index: 1 node 0, 2 nodes 1, more 2. */
    public static int nodesIndex(int nNodes) {
        return nNodes <= 2 ? nNodes - 1 : 2;
    }

    /** Tree correction for AllReduce of {@code nBytes}, 1.0 outside the table. */
    public double treeCorrection(Protocol p, long nBytes) {
        int logSize = log2i(nBytes >> 6);
        return logSize >= 0 && logSize < 23 ? treeCorrection[p.ordinal()][logSize] : 1.0;
    }

    static int log2i(long n) {
        return n <= 0 ? -1 : 63 - Long.numberOfLeadingZeros(n);
    }
}
