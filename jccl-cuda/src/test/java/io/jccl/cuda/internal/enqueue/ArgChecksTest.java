package io.jccl.cuda.internal.enqueue;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ArgChecksTest {
    private static final String W = "GpuCommunicator rank 1/2 (GPU 1, x): allGather";

    @Test
    void sameBufferOrNcclsInPlaceLayoutIsAllowedPartialOverlapIsNot() {
        assertThat(ArgChecks.overlap(W, 0x1000, 64, 0x1000, 64, 0)).isTrue();
        assertThat(ArgChecks.overlap(W, 0x1040, 64, 0x1000, 128, 64)).isTrue();
        assertThat(ArgChecks.overlap(W, 0x1000, 64, 0x2000, 64, 0)).isFalse();
        assertThatThrownBy(() -> ArgChecks.overlap(W, 0x1010, 64, 0x1000, 64, 0)).isInstanceOf(JcclException.class)
                .hasMessageStartingWith(W).hasMessageContaining("overlap")
                .matches(e -> ((JcclException) e).result() == Result.INVALID_ARGUMENT);
        assertThatCode(() -> ArgChecks.overlap(W, 0x1000, 0, 0x1000 - 8, 64, 0)).doesNotThrowAnyException();
        // a negative offset: the receive range inside the send range (reduceScatter, scatter)
        assertThat(ArgChecks.overlap(W, 0x1000, 128, 0x1040, 64, -64)).isTrue();
        assertThatThrownBy(() -> ArgChecks.overlap(W, 0x1000, 128, 0x1000, 64, -64))
                .hasMessageContaining("in place, the receive buffer must start 64 bytes into the send buffer");
        assertThatThrownBy(() -> ArgChecks.overlap(W, 0x1000, 64, 0x1000, 128, 64))
                .hasMessageContaining("in place, the send data must start 64 bytes into the receive buffer");
    }

    @Test
    void sizesCountsRanksAndScalars() {
        assertThat(ArgChecks.bytes(W, 10, DataType.FLOAT64, 2)).isEqualTo(160);
        assertThatThrownBy(() -> ArgChecks.bytes(W, -1, DataType.FLOAT32, 1)).hasMessageContaining(">= 0");
        assertThatThrownBy(() -> ArgChecks.bytes(W, Long.MAX_VALUE / 2, DataType.FLOAT32, 1))
                .hasMessageContaining("too large");
        assertThatThrownBy(() -> ArgChecks.size(W, "receive", 100, 128)).hasMessageContaining("has 100 bytes");
        assertThatThrownBy(() -> ArgChecks.rank(W, "peer", 2, 2)).hasMessageContaining("peer 2");
        assertThatThrownBy(() -> ArgChecks.op(W, RedOp.preMulSum(0.5), DataType.INT32))
                .hasMessageContaining("whole-number");
        assertThatCode(() -> ArgChecks.op(W, RedOp.preMulSum(0.5), DataType.BFLOAT16)).doesNotThrowAnyException();
    }
}
