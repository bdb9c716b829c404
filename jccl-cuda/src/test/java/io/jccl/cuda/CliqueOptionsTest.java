package io.jccl.cuda;

import io.jccl.JcclException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CliqueOptionsTest {
    @Test
    void parsesBinarySizes() {
        assertThat(CliqueOptions.parseBytes("4096")).isEqualTo(4096);
        assertThat(CliqueOptions.parseBytes("64K")).isEqualTo(65536);
        assertThat(CliqueOptions.parseBytes("8m")).isEqualTo(8L << 20);
        assertThat(CliqueOptions.parseBytes("1G")).isEqualTo(1L << 30);
        assertThat(CliqueOptions.parseBytes("2GB")).isEqualTo(2L << 30);
        assertThatThrownBy(() -> CliqueOptions.parseBytes("lots")).isInstanceOf(JcclException.class)
                .hasMessageContaining("lots");
    }

    @Test
    void validatesRanges() {
        CliqueOptions d = CliqueOptions.defaults();
        assertThatThrownBy(() -> d.withMaxBlocks(0)).isInstanceOf(JcclException.class).hasMessageContaining("maxBlocks");
        assertThatThrownBy(() -> d.withRingChannels(500)).isInstanceOf(JcclException.class)
                .hasMessageContaining("ringChannels");
        assertThat(d.withMaxBlocks(7).maxBlocks()).isEqualTo(7);
    }

    @Test
    void systemPropertiesOverrideDefaults() {
        System.setProperty("jccl.cuda.algorithm", "ring");
        System.setProperty("jccl.cuda.ringSlotBytes", "128K");
        try {
            CliqueOptions o = CliqueOptions.fromSystemProperties();
            assertThat(o.algorithm()).isEqualTo(AllReduceAlgorithm.RING);
            assertThat(o.ringSlotBytes()).isEqualTo(128 << 10);
            assertThat(o.llMaxBytes()).isEqualTo(CliqueOptions.defaults().llMaxBytes());
        } finally {
            System.clearProperty("jccl.cuda.algorithm");
            System.clearProperty("jccl.cuda.ringSlotBytes");
        }
    }

    @Test
    void algorithmNamesParse() {
        assertThat(AllReduceAlgorithm.fromName("twoshot")).isEqualTo(AllReduceAlgorithm.TWO_SHOT);
        assertThat(AllReduceAlgorithm.fromName("ONE_SHOT")).isEqualTo(AllReduceAlgorithm.ONE_SHOT);
        assertThatThrownBy(() -> AllReduceAlgorithm.fromName("tree")).isInstanceOf(JcclException.class);
    }
}
