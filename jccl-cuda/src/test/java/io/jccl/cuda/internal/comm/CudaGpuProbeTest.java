package io.jccl.cuda.internal.comm;

import io.jccl.cuda.internal.driver.Nvml;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** Link counting without NVML (as on machines without the NVIDIA driver): native peer atomics count one link. */
class CudaGpuProbeTest {
    @Test
    void withoutNvmlAPairWithNativeAtomicsCountsOneLink() {
        assumeFalse(Nvml.isAvailable(), "NVML is present here");
        List<String> gpus = List.of("0000:01:00.0", "0000:02:00.0", "00000000:03:00.0");
        assertThat(CudaGpuProbe.linkCounts("0000:02:00.0", gpus, q -> q != 0)).containsExactly(0, 0, 1);
        assertThat(CudaGpuProbe.linkCounts("0000:01:00.0", gpus, q -> false)).containsExactly(0, 0, 0);
    }

    @Test
    void allOnesRemotesAreNvSwitchesAsInNcclsDumpOfA2xH200Vm() {
        assertThat(Nvml.isHiddenSwitch("FFFFFFFF:FF:FF.0")).isTrue();
        assertThat(Nvml.isHiddenSwitch("fffffff:ff:ff.0")).isTrue();
        assertThat(Nvml.isHiddenSwitch("0000:00:07.0")).isFalse();
        assertThat(Nvml.pciClass(2)).isEqualTo("0x068000");
        assertThat(Nvml.pciClass(0)).isEqualTo("0x030200");
    }

    @Test
    void nvmlIsAbsentOrAnswersForUnknownGpusWithNothing() {
        assertThat(Nvml.nvlinks("0000:ff:1f.7")).isEmpty();
    }
}
