package io.jccl.cuda;

import io.jccl.DataType;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

class HostElementsTest {
    @Test
    void smallIntegersRoundTripExactlyInEveryType() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(64);
            for (DataType t : DataType.values()) {
                long lo = t.isUnsigned() ? 0 : -8;
                for (long v = lo; v <= 8; v++) {
                    HostElements.set(t, s, 3, v);
                    assertThat(HostElements.get(t, s, 3)).as(t + " " + v).isEqualTo(v);
                    HostElements.setLong(t, s, 2, v);
                    assertThat(HostElements.getLong(t, s, 2)).as(t + " long " + v).isEqualTo(v);
                }
            }
        }
    }

    @Test
    void integersWrapToTheirWidth() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(64);
            HostElements.setLong(DataType.INT8, s, 0, 130);
            assertThat(HostElements.getLong(DataType.INT8, s, 0)).isEqualTo(-126);
            HostElements.setLong(DataType.UINT8, s, 0, -1);
            assertThat(HostElements.getLong(DataType.UINT8, s, 0)).isEqualTo(255);
            HostElements.setLong(DataType.UINT32, s, 1, -1);
            assertThat(HostElements.get(DataType.UINT32, s, 1)).isEqualTo(4294967295.0);
            HostElements.setLong(DataType.UINT64, s, 1, -1);
            assertThat(HostElements.get(DataType.UINT64, s, 1)).isEqualTo(18446744073709551615.0);
        }
    }

    @Test
    void bf16RoundsToNearestEvenAndKeepsNan() {
        assertThat(HostElements.floatToBf16(1.0f)).isEqualTo((short) 0x3F80);
        // 1 + 2^-8 is exactly between 1 and 1 + 2^-7: ties to the even mantissa (1.0)
        assertThat(HostElements.floatToBf16(1.00390625f)).isEqualTo((short) 0x3F80);
        assertThat(HostElements.floatToBf16(1.0040f)).isEqualTo((short) 0x3F81);
        assertThat(Float.isNaN(HostElements.bf16ToFloat(HostElements.floatToBf16(Float.NaN)))).isTrue();
        assertThat(HostElements.bf16ToFloat((short) 0xC040)).isEqualTo(-3.0f);
    }

    @Test
    void fp8E4m3MatchesItsEncodingAndSaturates() {
        assertThat(HostElements.toE4m3(1.0)).isEqualTo((byte) 0x38);
        assertThat(HostElements.toE4m3(-2.0)).isEqualTo((byte) 0xC0);
        assertThat(HostElements.toE4m3(448)).isEqualTo((byte) 0x7E);
        assertThat(HostElements.toE4m3(1e6)).isEqualTo((byte) 0x7E);
        assertThat(HostElements.toE4m3(-1e6)).isEqualTo((byte) 0xFE);
        assertThat(HostElements.e4m3ToFloat((byte) 0x01)).isEqualTo(0x1p-9f);
        assertThat(Float.isNaN(HostElements.e4m3ToFloat((byte) 0x7F))).isTrue();
        // 1.0625 lies between 1 and 1.125: a tie, rounded to the even mantissa (1.0)
        assertThat(HostElements.e4m3ToFloat(HostElements.toE4m3(1.0625))).isEqualTo(1.0f);
        assertThat(HostElements.e4m3ToFloat(HostElements.toE4m3(1.07))).isEqualTo(1.125f);
        for (int c = 0; c < 256; c++) {
            float v = HostElements.e4m3ToFloat((byte) c);
            if (!Float.isNaN(v) && !(v == 0 && c == 0x80)) {
                assertThat(HostElements.toE4m3(v) & 0xFF).as("code %02x", c).isEqualTo(c);
            }
        }
    }

    @Test
    void fp8E5m2MatchesItsEncodingAndSaturates() {
        assertThat(HostElements.toE5m2(1.0)).isEqualTo((byte) 0x3C);
        assertThat(HostElements.toE5m2(57344)).isEqualTo((byte) 0x7B);
        assertThat(HostElements.toE5m2(1e9)).isEqualTo((byte) 0x7B);
        assertThat(HostElements.e5m2ToFloat((byte) 0x7C)).isEqualTo(Float.POSITIVE_INFINITY);
        for (int c = 0; c < 256; c++) {
            float v = HostElements.e5m2ToFloat((byte) c);
            if (Float.isFinite(v) && !(v == 0 && c == 0x80)) {
                assertThat(HostElements.toE5m2(v) & 0xFF).as("code %02x", c).isEqualTo(c);
            }
        }
    }
}
