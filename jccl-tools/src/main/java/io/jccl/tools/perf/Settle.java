package io.jccl.tools.perf;

import java.util.function.DoubleUnaryOperator;

/**
 * The two rules that make a host measurement time compiled code on ranks that start together, used by perf's rows
 * ({@link PerfRunner}) and open to other timed loops that should be measured the same way: warm up until the time per
 * call stops improving, and barrier until every rank leaves the barrier within microseconds. Stateless; called on
 * each rank's thread, every rank making the same calls (the decisions use a value reduced over the ranks).
 */
public final class Settle {
    /** A barrier counts as aligned when the slowest rank spent less than this in it. */
    public static final double ALIGNED_BARRIER_US = 50;
    /** Warm-up rounds at most. */
    public static final int MAX_ROUNDS = 60;

    private Settle() {
    }

    /**
     * At least {@code minRounds} rounds, then more until the time per call stops improving (three rounds in a row
     * not 5% faster than the best), {@link #MAX_ROUNDS} at most: how long the JIT needs differs by machine and load,
     * so the warm-up watches it settle (measured: the small-message path needs 100,000 to 200,000 calls before C2
     * settles).
     *
     * @param minRounds the fewest rounds
     * @param first     the time per call before the first round (Double.MAX_VALUE when unknown)
     * @param round     runs one round given the time per call of the round before; returns its time per call, the
     *                  same on every rank (the slowest rank's)
     * @return the last round's time per call
     */
    public static double untilFlat(int minRounds, double first, DoubleUnaryOperator round) {
        double t = first;
        double best = first;
        int flat = 0;
        for (int i = 0; i < MAX_ROUNDS && (i < minRounds || flat < 3); i++) {
            t = round.applyAsDouble(t);
            flat = t < best * 0.95 ? 0 : flat + 1;
            best = Math.min(best, t);
        }
        return t;
    }

    /** Calls in the first round of a warm-up bound by time: it only sizes the rounds after it. */
    static final int PROBE_CALLS = 10;
    /** A warm-up bound by time sizes its rounds so that at least this many fit in its budget. */
    static final int ROUNDS_PER_BUDGET = 8;

    /** One warm-up round: makes {@code calls} calls and returns the time per call in ns, the same on every rank. */
    @FunctionalInterface
    public interface Round {
        double run(int calls);
    }

    /**
     * {@link #untilFlat(int, double, DoubleUnaryOperator)} bound by time as well as by rounds: a probe round of
     * {@link #PROBE_CALLS} calls measures the call, then each round makes at most {@code callsPerRound} calls and
     * at most what fits {@link #ROUNDS_PER_BUDGET} rounds into {@code budgetNs}, and the warm-up ends once the calls
     * made reach {@code budgetNs} whatever the other rules say. A count sized for microsecond calls in shared memory
     * would otherwise take minutes where a call takes milliseconds (across hosts, on a GPU shared by processes).
     * Every rank takes the same decisions: they use only {@code round}'s reduced times.
     *
     * @return the time the warm-up's calls took, in ns (the sum of calls × time per call)
     */
    public static double untilFlatWithin(int minRounds, int callsPerRound, long budgetNs, Round round) {
        if (budgetNs <= 0 || callsPerRound <= 0) {
            return 0;
        }
        int probe = Math.min(callsPerRound, PROBE_CALLS);
        double t = round.run(probe);
        double spentNs = probe * t;
        double best = Double.MAX_VALUE;
        int flat = 0;
        for (int i = 0; i < MAX_ROUNDS && (i < minRounds || flat < 3) && spentNs < budgetNs; i++) {
            int calls = (int) Math.max(1, Math.min(callsPerRound, budgetNs / (double) ROUNDS_PER_BUDGET / t));
            t = round.run(calls);
            spentNs += calls * t;
            flat = t < best * 0.95 ? 0 : flat + 1;
            best = Math.min(best, t);
        }
        return spentNs;
    }

    /**
     * Barriers until one takes every rank less than {@link #ALIGNED_BARRIER_US}, 10 at most, so the timed loop starts
     * on every rank within microseconds. Ranks may reach a barrier up to seconds apart (after a JIT-quiet wait, or
     * after sleeping through another communicator's phase); the early one falls asleep in it, and waking a sleeping
     * thread on a VM took up to 1.5 ms (measured: one rank began its 8 B row 1.5 ms after the other, and that row
     * read 8.8 µs per call instead of 0.6).
     *
     * @param barrier        one barrier over the ranks
     * @param slowestRankUs  the largest of every rank's value (a MAX reduction over the ranks)
     */
    public static void alignRanks(Runnable barrier, DoubleUnaryOperator slowestRankUs) {
        for (int i = 0; i < 10; i++) {
            long t0 = System.nanoTime();
            barrier.run();
            if (slowestRankUs.applyAsDouble((System.nanoTime() - t0) / 1e3) < ALIGNED_BARRIER_US) {
                return;
            }
        }
    }
}
