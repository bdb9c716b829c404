package io.jccl.cuda.internal;

import io.jccl.DataType;
import io.jccl.JcclException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HostElementsTest {
    @Test
    void smallIntegersRoundTripExactlyInEveryType() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(64);
            for (DataType t : new DataType[] {DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16}) {
                for (int v = -256; v <= 256; v++) {
                    HostElements.set(t, s, 3, v);
                    assertThat(HostElements.get(t, s, 3)).as(t + " " + v).isEqualTo(v);
                }
            }
        }
    }

    @Test
    void bf16RoundsToNearestEvenAndKeepsNan() {
        assertThat(HostElements.floatToBf16(1.0f)).isEqualTo((short) 0x3F80);
        // 1 + 2^-8 is exactly between 1 and 1 + 2^-7: ties to the even mantissa (1.0)
        assertThat(HostElements.floatToBf16(1.00390625f)).isEqualTo((short) 0x3F80);
        // a bit above the tie rounds up
        assertThat(HostElements.floatToBf16(1.0040f)).isEqualTo((short) 0x3F81);
        assertThat(Float.isNaN(HostElements.bf16ToFloat(HostElements.floatToBf16(Float.NaN)))).isTrue();
        assertThat(HostElements.bf16ToFloat((short) 0xC040)).isEqualTo(-3.0f);
    }

    @Test
    void otherTypesAreRefused() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(16);
            assertThatThrownBy(() -> HostElements.set(DataType.INT32, s, 0, 1)).isInstanceOf(JcclException.class);
        }
    }
}
