package io.jccl.tools.perf.gpu;

import io.jccl.JcclException;
import io.jccl.Result;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Without libnccl.so.2 perf's NCCL binding loads, and every call fails cleanly with SYSTEM_ERROR saying what to do. */
class NcclLibraryTest {
    @Test
    void ncclCallsFailCleanlyWhenTheLibraryIsMissing() {
        NcclLibrary nccl = NcclLibrary.load("/nonexistent/libnccl.so.2");
        assertThat(nccl.isLoaded()).isFalse();
        assertThatThrownBy(nccl::version).isInstanceOf(JcclException.class).hasMessageContaining("JCCL_NCCL_LIBRARY")
                .matches(e -> ((JcclException) e).result() == Result.SYSTEM_ERROR);
    }
}
