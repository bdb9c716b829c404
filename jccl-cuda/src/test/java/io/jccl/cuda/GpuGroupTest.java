package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.enqueue.GpuGroups;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link GpuGroup} on the CPU (an empty group touches no GPU): try-with-resources with no checked exception (this
 * class would not compile otherwise), nesting, idempotent close, and a close from another thread refused.
 */
class GpuGroupTest {
    @Test
    void groupsNestAndOnlyTheOutermostCloseEndsThem() {
        try (var outer = GpuCommunicator.group()) {
            try (GpuGroup inner = GpuCommunicator.group()) {
                assertThat(GpuGroups.inGroup()).isTrue();
            }
            assertThat(GpuGroups.inGroup()).isTrue();
        }
        assertThat(GpuGroups.inGroup()).isFalse();
    }

    @Test
    void closingTwiceEndsOneLevelOnce() {
        GpuGroup outer = GpuCommunicator.group();
        GpuGroup inner = GpuCommunicator.group();
        inner.close();
        inner.close();
        assertThat(GpuGroups.inGroup()).isTrue();
        outer.close();
        assertThat(GpuGroups.inGroup()).isFalse();
    }

    @Test
    void anotherThreadCannotCloseIt() {
        GpuGroup g = GpuCommunicator.group();
        try {
            assertThatThrownBy(() -> CompletableFuture.runAsync(g::close).join())
                    .isInstanceOf(CompletionException.class).cause().isInstanceOf(JcclException.class)
                    .hasMessageContaining("must be closed by the thread that opened it")
                    .matches(e -> ((JcclException) e).result() == Result.INVALID_USAGE, "INVALID_USAGE");
            assertThat(GpuGroups.inGroup()).isTrue();
        } finally {
            g.close();
        }
        assertThat(GpuGroups.inGroup()).isFalse();
    }
}
