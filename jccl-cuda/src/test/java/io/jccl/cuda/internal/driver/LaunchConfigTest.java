package io.jccl.cuda.internal.driver;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

class LaunchConfigTest {
    @Test
    void layoutsMatchCudaH() {
        // cuda.h (CUDA 12/13, 64-bit): CUlaunchConfig is 7 uints, the stream at 32, attrs at 40, numAttrs at 48;
        // CUlaunchAttribute is the id, 4 bytes of padding and a 64-byte union.
        assertThat(LaunchConfig.CONFIG.byteSize()).isEqualTo(56);
        assertThat(LaunchConfig.CONFIG.byteOffset(PathElement.groupElement("hStream"))).isEqualTo(32);
        assertThat(LaunchConfig.CONFIG.byteOffset(PathElement.groupElement("attrs"))).isEqualTo(40);
        assertThat(LaunchConfig.CONFIG.byteOffset(PathElement.groupElement("numAttrs"))).isEqualTo(48);
        assertThat(LaunchConfig.ATTRIBUTE.byteSize()).isEqualTo(72);
        assertThat(LaunchConfig.ATTRIBUTE.byteOffset(PathElement.groupElement("value"))).isEqualTo(8);
    }

    @Test
    void setWritesTheLaunchAndTheProgrammaticAttribute() {
        try (Arena arena = Arena.ofConfined()) {
            LaunchConfig c = new LaunchConfig(arena);
            MemorySegment stream = MemorySegment.ofAddress(0x1234);
            MemorySegment s = c.set(96, 512, 0, stream, true).segment();
            assertThat(s.get(JAVA_INT, 0)).isEqualTo(96);
            assertThat(s.get(JAVA_INT, 4)).isEqualTo(1);
            assertThat(s.get(JAVA_INT, 12)).isEqualTo(512);
            assertThat(s.get(ADDRESS, 32).address()).isEqualTo(0x1234);
            assertThat(s.get(JAVA_INT, 48)).isEqualTo(1);
            MemorySegment attr = s.get(ADDRESS, 40).reinterpret(LaunchConfig.ATTRIBUTE.byteSize());
            assertThat(attr.get(JAVA_INT, 0)).isEqualTo(LaunchConfig.ATTR_PROGRAMMATIC_STREAM_SERIALIZATION);
            assertThat(attr.get(JAVA_INT, 8)).isEqualTo(1);
            assertThat(c.toString()).contains("grid 96", "programmatic");
            assertThat(c.set(1, 512, 0, stream, false).segment().get(JAVA_INT, 48)).isZero();
        }
    }
}
