package io.jccl.internal.tuning;

/**
 * The per-operation table a tuner plugin sees and may edit: predicted time (µs) for every algorithm × protocol, with
 * {@link #IGNORE} (-1) for combinations that are not usable. A plugin may raise or lower times, or set a usable entry
 * to IGNORE to rule it out; it cannot make an unusable combination usable (its edits there are ignored).
 *
 * <p>Created per call on the selecting thread and handed to the plugin for the duration of the call; mirrors the
 * {@code float table[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS]} of ncclTuner_t.getCollInfo.
 */
final class CostTable {
    /** NCCL_TUNING_IGNORE: not usable. */
    public static final double IGNORE = -1.0;

    private final double[][] timeUs = new double[Algorithm.COUNT][Protocol.COUNT];

    CostTable() {
        clear();
    }

    /** Every entry back to {@link #IGNORE}. */
    void clear() {
        for (double[] row : timeUs) {
            java.util.Arrays.fill(row, IGNORE);
        }
    }

    public double get(Algorithm a, Protocol p) {
        return timeUs[a.ordinal()][p.ordinal()];
    }

    public void set(Algorithm a, Protocol p, double us) {
        timeUs[a.ordinal()][p.ordinal()] = us;
    }
}
