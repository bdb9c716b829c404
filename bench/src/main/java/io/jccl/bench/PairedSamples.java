package io.jccl.bench;

import java.util.Arrays;

/**
 * Per-round times of two configurations measured alternately in one job (a reference and a test), and what they come
 * to: the median of each, the ratio of the medians and the spread of the per-round ratios. A round's two phases run
 * within tens of milliseconds of each other, so its ratio compares the two under the same machine state even when the
 * machine's speed swings from second to second. Filled by rank 0's thread of {@link OversubscriptionBench}.
 */
public final class PairedSamples {
    private final double[] reference;
    private final double[] test;
    private int n;

    /** @param rounds how many rounds will be added at most */
    public PairedSamples(int rounds) {
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds must be >= 1, got " + rounds);
        }
        reference = new double[rounds];
        test = new double[rounds];
    }

    /** Adds one round: the reference's and the test's time per call (any unit, the same for both; > 0). */
    public void add(double referenceTime, double testTime) {
        if (!(referenceTime > 0) || !(testTime > 0)) {
            throw new IllegalArgumentException("times must be > 0: " + referenceTime + ", " + testTime);
        }
        if (n == reference.length) {
            throw new IllegalStateException("already " + n + " rounds");
        }
        reference[n] = referenceTime;
        test[n] = testTime;
        n++;
    }

    /** @return rounds added */
    public int rounds() {
        return n;
    }

    /** @return the median reference time */
    public double referenceMedian() {
        return quantile(Arrays.copyOf(reference, n), 0.5);
    }

    /** @return the median test time */
    public double testMedian() {
        return quantile(Arrays.copyOf(test, n), 0.5);
    }

    /** @return test median over reference median */
    public double ratioOfMedians() {
        return testMedian() / referenceMedian();
    }

    /**
     * @param q a quantile in [0, 1]
     * @return that quantile of the per-round ratios (test over reference), interpolated between neighbours
     */
    public double pairedRatio(double q) {
        double[] r = new double[n];
        for (int i = 0; i < n; i++) {
            r[i] = test[i] / reference[i];
        }
        return quantile(r, q);
    }

    /** The q-quantile of {@code v} with linear interpolation (sorts {@code v}). */
    static double quantile(double[] v, double q) {
        if (v.length == 0) {
            throw new IllegalStateException("no rounds");
        }
        if (!(q >= 0 && q <= 1)) {
            throw new IllegalArgumentException("quantile must be in [0, 1], got " + q);
        }
        Arrays.sort(v);
        double pos = q * (v.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(v.length - 1, lo + 1);
        return v[lo] + (v[hi] - v[lo]) * (pos - lo);
    }
}
