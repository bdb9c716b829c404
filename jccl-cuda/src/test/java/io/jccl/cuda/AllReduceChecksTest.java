package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AllReduceChecksTest {
    @Test
    void acceptsDisjointAndIdenticalBuffers() {
        assertThatCode(() -> AllReduceChecks.checkBuffers(0, 0x1000, 4096, 0x9000, 4096, 4096)).doesNotThrowAnyException();
        assertThatCode(() -> AllReduceChecks.checkBuffers(0, 0x1000, 4096, 0x1000, 4096, 4096)).doesNotThrowAnyException();
        assertThatCode(() -> AllReduceChecks.checkBuffers(0, 0x1000, 4096, 0x2000, 4096, 4096)).doesNotThrowAnyException();
    }

    @Test
    void refusesTooSmallBuffers() {
        assertThatThrownBy(() -> AllReduceChecks.checkBuffers(1, 0x1000, 100, 0x9000, 4096, 400))
                .isInstanceOf(JcclException.class).hasMessageContaining("send[1] has 100 bytes")
                .matches(e -> ((JcclException) e).result() == Result.INVALID_ARGUMENT);
        assertThatThrownBy(() -> AllReduceChecks.checkBuffers(2, 0x1000, 4096, 0x9000, 10, 400))
                .isInstanceOf(JcclException.class).hasMessageContaining("recv[2] has 10 bytes");
    }

    @Test
    void refusesPartlyOverlappingBuffers() {
        assertThatThrownBy(() -> AllReduceChecks.checkBuffers(0, 0x1000, 4096, 0x1004, 4096, 4000))
                .isInstanceOf(JcclException.class).hasMessageContaining("overlap");
    }
}
