package io.jccl.tools.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class BandwidthModelTest {

    @Test
    void busFactorsAreNcclTests() {
        assertThat(BandwidthModel.busFactor(PerfCollective.ALL_REDUCE, 8)).isEqualTo(1.75);
        assertThat(BandwidthModel.busFactor(PerfCollective.ALL_REDUCE, 2)).isEqualTo(1.0);
        assertThat(BandwidthModel.busFactor(PerfCollective.ALL_REDUCE, 1)).isZero();
        assertThat(BandwidthModel.busFactor(PerfCollective.ALL_GATHER, 4)).isEqualTo(0.75);
        assertThat(BandwidthModel.busFactor(PerfCollective.REDUCE_SCATTER, 4)).isEqualTo(0.75);
        assertThat(BandwidthModel.busFactor(PerfCollective.ALL_TO_ALL, 4)).isEqualTo(0.75);
        assertThat(BandwidthModel.busFactor(PerfCollective.GATHER, 2)).isEqualTo(0.5);
        assertThat(BandwidthModel.busFactor(PerfCollective.SCATTER, 2)).isEqualTo(0.5);
        assertThat(BandwidthModel.busFactor(PerfCollective.BROADCAST, 8)).isEqualTo(1.0);
        assertThat(BandwidthModel.busFactor(PerfCollective.REDUCE, 8)).isEqualTo(1.0);
        assertThat(BandwidthModel.busFactor(PerfCollective.SEND_RECV, 8)).isEqualTo(1.0);
    }

    @Test
    void allReduceOf128MiBIn1msOnTwoRanks() {
        // 33554432 floats = 134217728 bytes in 1 ms -> 134.22 GB/s algbw, factor 1 -> same busbw
        BandwidthModel.Bandwidth bw = BandwidthModel.of(PerfCollective.ALL_REDUCE, 33_554_432, 4, 2, 1e-3);
        assertThat(bw.algBwGBps()).isCloseTo(134.217728, within(1e-9));
        assertThat(bw.busBwGBps()).isCloseTo(134.217728, within(1e-9));
    }

    @Test
    void allGatherCountsTheWholeOutput() {
        // 1 MiB per rank, 4 ranks, 1 ms: algbw = 4 MiB / 1 ms = 4.194304 GB/s, busbw x 3/4
        BandwidthModel.Bandwidth bw = BandwidthModel.of(PerfCollective.ALL_GATHER, 262_144, 4, 4, 1e-3);
        assertThat(bw.algBwGBps()).isCloseTo(4.194304, within(1e-9));
        assertThat(bw.busBwGBps()).isCloseTo(3.145728, within(1e-9));
    }

    @Test
    void noTimeMeansNoBandwidth() {
        BandwidthModel.Bandwidth bw = BandwidthModel.of(PerfCollective.BROADCAST, 100, 4, 2, 0);
        assertThat(bw.algBwGBps()).isZero();
        assertThat(bw.busBwGBps()).isZero();
    }
}
