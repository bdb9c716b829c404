package io.jccl.bench;

import io.jccl.Communicator;
import io.jccl.Config;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class OversubscriptionBenchTest {

    @Test
    void quantilesInterpolateBetweenNeighbours() {
        assertThat(PairedSamples.quantile(new double[]{4, 1, 3, 2}, 0.5)).isEqualTo(2.5);
        assertThat(PairedSamples.quantile(new double[]{5}, 0.9)).isEqualTo(5);
        assertThat(PairedSamples.quantile(new double[]{10, 0, 20}, 0.1)).isCloseTo(2, within(1e-12));
        assertThatThrownBy(() -> PairedSamples.quantile(new double[0], 0.5)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void pairedRatiosFollowEachRoundWhileMediansDoNot() {
        PairedSamples p = new PairedSamples(3);
        // the machine's speed swings 3x between rounds; within a round the test side is always 2x the reference
        p.add(100, 200);
        p.add(300, 600);
        p.add(110, 220);
        assertThat(p.rounds()).isEqualTo(3);
        assertThat(p.referenceMedian()).isEqualTo(110);
        assertThat(p.testMedian()).isEqualTo(220);
        assertThat(p.pairedRatio(0.1)).isCloseTo(2, within(1e-12));
        assertThat(p.pairedRatio(0.9)).isCloseTo(2, within(1e-12));
        assertThatThrownBy(() -> p.add(1, 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new PairedSamples(1).add(0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sizesAreWholeFloatsFromMinToMax() {
        assertThat(OversubscriptionBench.sizes(32 << 10, 8 << 20, 4))
                .containsExactly(32768L, 131072L, 524288L, 2097152L, 8388608L);
        assertThat(OversubscriptionBench.sizes(6, 6, 2)).containsExactly(4L);
        assertThatThrownBy(() -> OversubscriptionBench.sizes(64, 32, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThat(OversubscriptionBench.callsFor(30e6, 10e3)).isEqualTo(3000);
        assertThat(OversubscriptionBench.callsFor(30e6, 1e9)).isEqualTo(3);
    }

    @Test
    void fourThreadRanksMeasureBothSidesAndCheckTheSums() throws Exception {
        List<Communicator> comms = Communicator.initAll(4, Config.defaults().withName("oversub-bench"));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<OversubscriptionBench.Result>> futures = new ArrayList<>();
            for (Communicator c : comms) {
                futures.add(pool.submit(() -> OversubscriptionBench.measure(c, List.of(4096L, 65536L), 3, 2e5)));
            }
            OversubscriptionBench.Result r0 = futures.get(0).get(120, TimeUnit.SECONDS);
            for (Future<OversubscriptionBench.Result> f : futures) {
                assertThat(f.get(120, TimeUnit.SECONDS).wrongElements()).isZero();
            }
            assertThat(r0.rows()).hasSize(2);
            for (OversubscriptionBench.Row row : r0.rows()) {
                assertThat(row.samples().rounds()).isEqualTo(3);
                assertThat(row.samples().referenceMedian()).isPositive();
                assertThat(row.samples().testMedian()).isPositive();
                assertThat(row.callsPerPhase()).isGreaterThanOrEqualTo(3);
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            OversubscriptionBench.print(r0, 4, 3, 0.2, new PrintStream(bytes, true, StandardCharsets.UTF_8));
            String table = bytes.toString(StandardCharsets.UTF_8);
            assertThat(table).contains("4 ranks against 2 of them (world ranks 0 and 2)")
                    .contains("# wrong elements: 0")
                    .containsPattern("(?m)^\\s+65536\\s+\\d+\\s+[0-9.]+\\s+[0-9.]+");
        } finally {
            pool.shutdownNow();
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void refusesTwoRanks() {
        List<Communicator> comms = Communicator.initAll(2, Config.defaults().withName("oversub-two"));
        try {
            assertThatThrownBy(() -> OversubscriptionBench.measure(comms.get(0), List.of(64L), 1, 1e5))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 3 ranks");
        } finally {
            comms.forEach(Communicator::close);
        }
    }
}
