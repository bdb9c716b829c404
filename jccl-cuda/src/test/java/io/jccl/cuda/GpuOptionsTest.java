package io.jccl.cuda;

import io.jccl.JcclException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GpuOptionsTest {
    @Test
    void parsesBinarySizes() {
        assertThat(GpuOptions.parseBytes("4096")).isEqualTo(4096);
        assertThat(GpuOptions.parseBytes("64K")).isEqualTo(65536);
        assertThat(GpuOptions.parseBytes("8m")).isEqualTo(8L << 20);
        assertThat(GpuOptions.parseBytes("1G")).isEqualTo(1L << 30);
        assertThat(GpuOptions.parseBytes("2GB")).isEqualTo(2L << 30);
        assertThatThrownBy(() -> GpuOptions.parseBytes("lots")).isInstanceOf(JcclException.class)
                .hasMessageContaining("lots");
    }

    @Test
    void validatesRanges() {
        GpuOptions d = GpuOptions.defaults();
        assertThatThrownBy(() -> d.withMaxBlocks(0)).isInstanceOf(JcclException.class).hasMessageContaining("maxBlocks");
        assertThatThrownBy(() -> d.withRing(500, 1 << 18, 2)).isInstanceOf(JcclException.class)
                .hasMessageContaining("ringChannels");
        assertThat(d.withMaxBlocks(7).maxBlocks()).isEqualTo(7);
    }

    @Test
    void systemPropertiesOverrideDefaults() {
        System.setProperty("jccl.cuda.algorithm", "ring");
        System.setProperty("jccl.cuda.ringSlotBytes", "128K");
        try {
            GpuOptions o = GpuOptions.fromSystemProperties();
            assertThat(o.algorithm()).isEqualTo(AllReduceAlgorithm.RING);
            assertThat(o.ringSlotBytes()).isEqualTo(128 << 10);
            assertThat(o.llMaxBytes()).isEqualTo(GpuOptions.defaults().llMaxBytes());
        } finally {
            System.clearProperty("jccl.cuda.algorithm");
            System.clearProperty("jccl.cuda.ringSlotBytes");
        }
    }

    @Test
    void algorithmNamesParse() {
        assertThat(AllReduceAlgorithm.fromName("twoshot")).isEqualTo(AllReduceAlgorithm.TWO_SHOT);
        assertThat(AllReduceAlgorithm.fromName("ONE_SHOT")).isEqualTo(AllReduceAlgorithm.ONE_SHOT);
        assertThat(AllReduceAlgorithm.fromName("tree")).isEqualTo(AllReduceAlgorithm.TREE);
        assertThatThrownBy(() -> AllReduceAlgorithm.fromName("nvls")).isInstanceOf(JcclException.class)
                .hasMessageContaining("ring or tree");
    }

    @Test
    void ncclProtoLeavingLl128OutOfAllReduceTurnsTheKernelOff() {
        assertThat(GpuOptions.ll128AllowedBy(null)).isTrue();
        assertThat(GpuOptions.ll128AllowedBy(" ")).isTrue();
        assertThat(GpuOptions.ll128AllowedBy("LL128")).isTrue();
        assertThat(GpuOptions.ll128AllowedBy("broadcast:^LL128")).isTrue();
        assertThat(GpuOptions.ll128AllowedBy("^LL128")).isFalse();
        assertThat(GpuOptions.ll128AllowedBy("LL,Simple")).isFalse();
        assertThat(GpuOptions.ll128AllowedBy("allreduce:^ll128")).isFalse();
        assertThatThrownBy(() -> GpuOptions.ll128AllowedBy("LL256")).isInstanceOf(JcclException.class)
                .hasMessageContaining("NCCL_PROTO");
    }

    @Test
    void ctaPolicyTakesNcclsFlagsAndNames() {
        assertThat(CtaPolicy.parse("0")).isEqualTo(CtaPolicy.DEFAULT);
        assertThat(CtaPolicy.parse("1")).isEqualTo(CtaPolicy.EFFICIENCY);
        assertThat(CtaPolicy.parse("2")).isEqualTo(CtaPolicy.ZERO);
        assertThat(CtaPolicy.parse("3")).as("ZERO wins over EFFICIENCY").isEqualTo(CtaPolicy.ZERO);
        assertThat(CtaPolicy.parse(" zero ")).isEqualTo(CtaPolicy.ZERO);
        assertThatThrownBy(() -> CtaPolicy.parse("4")).isInstanceOf(JcclException.class)
                .hasMessageContaining("CTA policy '4'");
        assertThatThrownBy(() -> CtaPolicy.parse("fast")).hasMessageContaining("default, efficiency, zero");
        assertThat(GpuOptions.defaults().ctaPolicy()).isEqualTo(CtaPolicy.DEFAULT);
        assertThat(GpuOptions.defaults().withCtaPolicy(CtaPolicy.ZERO).ctaPolicy()).isEqualTo(CtaPolicy.ZERO);
    }
}
