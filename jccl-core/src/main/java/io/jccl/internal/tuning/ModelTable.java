package io.jccl.internal.tuning;

/**
 * The per-communicator result of a cost model's init: for each tuned collective × algorithm × protocol, the latency
 * (µs) and bandwidth (GB/s, algorithm bandwidth) of the model, or the reason the combination is unavailable.
 *
 * <p>Filled once by the model's init on the initialising thread, read-only afterwards (safe to share); mirrors NCCL's
 * {@code generalLatencies / generalBandwidths} and the {@code enabled} matrix.
 */
final class ModelTable {
    private final double[][][] latUs = new double[AlgoProtoFilter.FUNCS.length][Algorithm.COUNT][Protocol.COUNT];
    private final double[][][] bwGBps = new double[AlgoProtoFilter.FUNCS.length][Algorithm.COUNT][Protocol.COUNT];
    private final String[][][] reason = new String[AlgoProtoFilter.FUNCS.length][Algorithm.COUNT][Protocol.COUNT];

    void set(int f, Algorithm a, Protocol p, double lat, double bw) {
        latUs[f][a.ordinal()][p.ordinal()] = lat;
        bwGBps[f][a.ordinal()][p.ordinal()] = bw;
    }

    /** Marks the combination unavailable (the first reason given wins). */
    void disable(int f, Algorithm a, Protocol p, String why) {
        if (reason[f][a.ordinal()][p.ordinal()] == null) {
            reason[f][a.ordinal()][p.ordinal()] = why;
        }
    }

    public double latUs(int f, Algorithm a, Protocol p) {
        return latUs[f][a.ordinal()][p.ordinal()];
    }

    public double bwGBps(int f, Algorithm a, Protocol p) {
        return bwGBps[f][a.ordinal()][p.ordinal()];
    }

    /** Why the combination is unavailable, or null when it is enabled. */
    public String disabledReason(int f, Algorithm a, Protocol p) {
        return reason[f][a.ordinal()][p.ordinal()];
    }

    public boolean enabled(int f, Algorithm a, Protocol p) {
        return reason[f][a.ordinal()][p.ordinal()] == null;
    }
}
