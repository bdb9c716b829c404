package io.jccl.cuda.internal.comm;

import io.jccl.cuda.GpuOptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The slot size across hosts: automatic within the pinned budget, or as the user set it. */
class NetSlotSizeTest {
    @Test
    void automaticSlotsAreTheLargestPowerOfTwoWithinTheBudget() {
        assertThat(ProcessWiring.netSlotBytes(2, 2)).isEqualTo(2048L << 10);
        assertThat(ProcessWiring.netSlotBytes(3, 2)).isEqualTo(1024L << 10);
        assertThat(ProcessWiring.netSlotBytes(4, 2)).isEqualTo(512L << 10);
        assertThat(ProcessWiring.netSlotBytes(4, 4)).isEqualTo(256L << 10);
        assertThat(ProcessWiring.netSlotBytes(64, 2)).isEqualTo(128L << 10);
        for (int n = 2; n <= 8; n++) {
            for (int ch = 1; ch <= 8; ch *= 2) {
                long slot = ProcessWiring.netSlotBytes(n, ch);
                long pinned = AreaLayout.of(n, GpuOptions.defaults().withRing(ch, slot, 1)).fifoBytes() * n;
                assertThat(Long.bitCount(slot)).isOne();
                assertThat(pinned <= ProcessWiring.NET_PINNED_BUDGET_BYTES
                        || slot == ProcessWiring.NET_SLOT_MIN_BYTES).as("n=%d ch=%d", n, ch).isTrue();
                assertThat(slot == ProcessWiring.NET_SLOT_MAX_BYTES || 2 * pinned > ProcessWiring.NET_PINNED_BUDGET_BYTES)
                        .as("n=%d ch=%d: twice the slot would still fit", n, ch).isTrue();
            }
        }
    }

    @Test
    void aSetSlotSizeWins() {
        System.setProperty("jccl.cuda.netSlotKiB", "64");
        try {
            assertThat(ProcessWiring.netSlotBytes(2, 2)).isEqualTo(64L << 10);
            assertThat(ProcessWiring.netSlotBytes(16, 8)).isEqualTo(64L << 10);
        } finally {
            System.clearProperty("jccl.cuda.netSlotKiB");
        }
    }
}
