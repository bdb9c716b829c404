package io.jccl.cuda.internal.kernels;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KernelNamesTest {
    @Test
    void namesFollowTheCudaMacros() {
        assertThat(KernelModules.allReduceKernel("ring", DataType.BFLOAT16, RedOp.MAX)).isEqualTo("jccl_ar_ring_bf16_max");
        assertThat(KernelModules.allReduceKernel("ll", DataType.FLOAT16, RedOp.PROD)).isEqualTo("jccl_ar_ll_f16_prod");
    }

    @Test
    void unsupportedTypesAndOpsAreInvalidArguments() {
        assertThatThrownBy(() -> KernelModules.typeSuffix(DataType.INT64)).isInstanceOf(JcclException.class)
                .hasMessageContaining("int64").extracting(e -> ((JcclException) e).result())
                .isEqualTo(Result.INVALID_ARGUMENT);
        assertThatThrownBy(() -> KernelModules.opSuffix(RedOp.AVG)).isInstanceOf(JcclException.class)
                .hasMessageContaining("avg");
    }

    @Test
    void missingPtxResourceSaysHowToRebuild() {
        assertThatThrownBy(() -> KernelModules.ptx("no_such_module")).isInstanceOf(JcclException.class)
                .hasMessageContaining("build-ptx.sh");
    }
}
