package io.jccl.cuda.internal.kernels;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.cuda.internal.enqueue.KernelFamily;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KernelNamesTest {
    @Test
    void namesFollowTheCudaMacros() {
        assertThat(KernelFamily.RING.kernelName(DataType.BFLOAT16, false)).isEqualTo("jccl_ring_bf16_any");
        assertThat(KernelFamily.LL.kernelName(DataType.FLOAT8_E4M3, true)).isEqualTo("jccl_ll_e4m3_sum");
        assertThat(KernelFamily.PULL.module(DataType.UINT64, true)).isEqualTo("reduce_u64_sum");
        assertThat(KernelFamily.LL_COPY.kernelName(DataType.FLOAT32, true)).isEqualTo("jccl_ll_copy");
        assertThat(KernelFamily.RING_COPY.module(DataType.INT8, false)).isEqualTo("copy");
        assertThat(KernelFamily.P2P.kernelName(DataType.INT8, false)).isEqualTo("jccl_p2p");
    }

    @Test
    void everyTypeHasASuffix() {
        for (DataType t : DataType.values()) {
            assertThat(KernelFamily.typeSuffix(t)).matches("[a-z0-9]+");
        }
    }

    @Test
    void missingPtxResourceSaysHowToRebuild() {
        assertThatThrownBy(() -> KernelModules.ptx("no_such_module")).isInstanceOf(JcclException.class)
                .hasMessageContaining("build-ptx.sh");
    }
}
