package io.jccl.tools.perf;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The warm-up rules of {@link Settle}, driven by simulated per-call times (nothing is timed). */
class SettleTest {
    /** A round that records its call counts and answers with a fixed time per call. */
    private static Settle.Round fixed(double nsPerCall, List<Integer> rounds) {
        return calls -> {
            rounds.add(calls);
            return nsPerCall;
        };
    }

    @Test
    void slowCallsWarmUpWithinTheBudgetNotTheCount() {
        List<Integer> rounds = new ArrayList<>();
        long budgetNs = 1_000_000_000L;
        // 4 ms per call (NCCL's socket transport across two namespace hosts on one GPU): 10,000 calls a round and 30
        // rounds would take 20 minutes
        double spent = Settle.untilFlatWithin(30, 10_000, budgetNs, fixed(4e6, rounds));
        long calls = rounds.stream().mapToLong(Integer::longValue).sum();
        assertThat(rounds.getFirst()).isEqualTo(Settle.PROBE_CALLS);
        assertThat(spent).isEqualTo(calls * 4e6);
        assertThat(spent).isGreaterThanOrEqualTo(budgetNs).isLessThan(budgetNs + budgetNs / Settle.ROUNDS_PER_BUDGET
                + 1);
        assertThat(rounds.subList(1, rounds.size())).allMatch(c -> c == (int) (budgetNs / (double) Settle.ROUNDS_PER_BUDGET / 4e6));
    }

    @Test
    void fastCallsKeepTheCountAndStopWhenFlat() {
        List<Integer> rounds = new ArrayList<>();
        double[] t = {2000};
        // half a microsecond once compiled: the count rules (rounds of 10,000, at least 6, then 3 flat ones)
        Settle.untilFlatWithin(6, 10_000, 1_000_000_000L, calls -> {
            rounds.add(calls);
            t[0] = Math.max(500, t[0] / 2);
            return t[0];
        });
        assertThat(rounds.getFirst()).isEqualTo(Settle.PROBE_CALLS);
        assertThat(rounds.subList(1, rounds.size())).allMatch(c -> c == 10_000);
        // 1000, 500, 500, 500 after the probe's 1000: flat from the third round on, so 6 rounds (the minimum) run
        assertThat(rounds).hasSize(1 + 6);
    }

    @Test
    void improvingCallsRunPastTheMinimumUntilFlat() {
        List<Integer> rounds = new ArrayList<>();
        double[] t = {1e6};
        Settle.untilFlatWithin(2, 100, Long.MAX_VALUE / 4, calls -> {
            rounds.add(calls);
            t[0] = rounds.size() < 12 ? t[0] * 0.8 : t[0];
            return t[0];
        });
        // 11 improving rounds (probe included), then 3 flat ones
        assertThat(rounds).hasSize(11 + 3);
    }

    @Test
    void noBudgetNoCalls() {
        List<Integer> rounds = new ArrayList<>();
        assertThat(Settle.untilFlatWithin(30, 10_000, 0, fixed(1, rounds))).isZero();
        assertThat(Settle.untilFlatWithin(30, 0, 1_000_000, fixed(1, rounds))).isZero();
        assertThat(rounds).isEmpty();
    }
}
