package io.jccl.cuda.internal.comm;

import io.jccl.cuda.GpuOptions;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AreaLayoutTest {
    @Test
    void partsFollowEachOtherAlignedAndHoldWhatTheKernelsAddress() {
        AreaLayout l = AreaLayout.of(2, GpuOptions.defaults());
        assertThat(l.llOffset()).isEqualTo(AreaLayout.SIGNALS_BYTES);
        // The defaults' LL128 up to 4 MiB: 32 lines per 480 bytes.
        assertThat(l.llBytes()).isEqualTo(2L * 2 * (((4 << 20) + 479) / 480 * 32) * 16);
        assertThat(AreaLayout.of(2, GpuOptions.defaults().withLlPackedMaxBytes(4 << 20)).llBytes())
                .isEqualTo(2L * 2 * (((4 << 20) + 1535) / 1536 * 128) * 16);
        // LL128: 32 lines per 480 data bytes; every slot a whole number of 128-byte lines.
        AreaLayout ll128 = AreaLayout.of(2, GpuOptions.defaults().withLl128MaxBytes(8 << 20));
        assertThat(ll128.llSlotWords()).isEqualTo(((8 << 20) + 479) / 480 * 32);
        assertThat(ll128.llSlotWords() % 8).isZero();
        assertThat(AreaLayout.of(2, GpuOptions.defaults().withLl128MaxBytes(0).withLlMaxBytes(48)).llSlotWords()).isEqualTo(8);
        assertThat(AreaLayout.of(4, GpuOptions.defaults()).llBytes()).isEqualTo(2L * 4 * (64 << 10) / 8 * 16);
        assertThat(l.pushOffset() % 4096).isZero();
        assertThat(l.pushOffset()).isGreaterThanOrEqualTo(l.llOffset() + l.llBytes());
        assertThat(l.connOffset()).isGreaterThanOrEqualTo(l.pushOffset() + l.pushBytes());
        assertThat(l.connCtlBytes()).isEqualTo(128 * 384);
        assertThat(l.fifoBytes()).isEqualTo(128L * 8 * (256 << 10));
        assertThat(l.totalBytes()).isGreaterThanOrEqualTo(l.connOffset() + l.connCtlBytes() + l.fifoBytes());
        assertThat(l.zeroRanges()).containsExactly(0, l.llOffset() + l.llBytes(), l.connOffset(), l.connCtlBytes());
    }

    @Test
    void oneRankNeedsNoConnectionsOrPushArea() {
        AreaLayout l = AreaLayout.of(1, GpuOptions.defaults());
        assertThat(l.pushBytes()).isZero();
        assertThat(l.connCtlBytes()).isZero();
        assertThat(l.fifoBytes()).isZero();
    }

    @Test
    void rankInfoRoundTripsAndRanksMustAgree() {
        byte[] h = new byte[64];
        h[0] = 7;
        h[63] = -1;
        RankInfo a = new RankInfo(0x51L, 4242, "0000:19:00.0", 132, "2/8192/4194304/128/262144", 1L << 30,
                0x7f0000000000L, h);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(RankInfo.BYTES);
            a.encode(s);
            assertThat(RankInfo.decode(s)).isEqualTo(a);
        }
        RankInfo b = new RankInfo(0x51L, 4243, "0000:2a:00.0", 132, a.layout(), 1L << 30, 0x7f0000000000L, h);
        RankInfo.checkConsistent(java.util.List.of(a, b), 0);
        RankInfo c = new RankInfo(0x51L, 4243, "0000:2a:00.0", 132, "2/1/1/1/1", 1L << 30, 0x7f0000000000L, h);
        assertThatThrownBy(() -> RankInfo.checkConsistent(java.util.List.of(a, c), 0)).hasMessageContaining("layout");
        RankInfo d = new RankInfo(0x51L, 4243, "0000:19:00.0", 132, a.layout(), 1L << 30, 0x7f0000000000L, h);
        assertThatThrownBy(() -> RankInfo.checkConsistent(java.util.List.of(a, d), 1)).hasMessageContaining("own GPU");
        // the same bus id on another host is another GPU
        RankInfo e = new RankInfo(0x52L, 4242, "0000:19:00.0", 132, a.layout(), 1L << 30, 0x7f0000000000L, h);
        RankInfo.checkConsistent(java.util.List.of(a, e), 0);
        assertThat(a.sameProcess(e)).isFalse();
        assertThat(a.sameGpu(e)).isFalse();
    }
}
