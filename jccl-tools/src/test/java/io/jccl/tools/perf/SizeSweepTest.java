package io.jccl.tools.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SizeSweepTest {

    @Test
    void factorStepMultipliesUpToTheMaximumInclusive() {
        SizeSweep s = new SizeSweep(8, 1 << 20, 1 << 20, 4);
        assertThat(s.sizes()).containsExactly(8L, 32L, 128L, 512L, 2048L, 8192L, 32768L, 131072L, 524288L);
        assertThat(s.multiplicative()).isTrue();
        assertThat(s.step()).isEqualTo(4);
    }

    @Test
    void byteStepAddsAndStopsBeforePassingTheMaximum() {
        SizeSweep s = new SizeSweep(100, 350, 100, 1);
        assertThat(s.sizes()).containsExactly(100L, 200L, 300L);
        assertThat(s.multiplicative()).isFalse();
        assertThat(s.step()).isEqualTo(100);
    }

    @Test
    void warmupDoublesWhateverTheStep() {
        SizeSweep s = new SizeSweep(8, 100, 30, 1);
        assertThat(s.warmupSizes()).containsExactly(8L, 16L, 32L, 64L);
    }

    @Test
    void zeroIsFollowedByOneSoTheSweepAdvances() {
        assertThat(new SizeSweep(0, 4, 1, 2).sizes()).containsExactly(0L, 1L, 2L, 4L);
        assertThat(new SizeSweep(0, 2, 1, 1).warmupSizes()).containsExactly(0L, 1L, 2L);
    }

    @Test
    void singleSizeByDefault() {
        SizeSweep s = new SizeSweep(32 << 20, 32 << 20, 1 << 20, 1);
        assertThat(s.sizes()).containsExactly(32L << 20);
    }

    @Test
    void rejectsInvertedRangesAndSteplessSweeps() {
        assertThatThrownBy(() -> new SizeSweep(64, 8, 1, 2)).hasMessageContaining("64 > 8");
        assertThatThrownBy(() -> new SizeSweep(8, 64, 0, 1)).hasMessageContaining("step must be positive");
    }
}
