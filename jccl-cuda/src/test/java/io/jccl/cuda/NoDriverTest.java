package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.driver.CudaLibrary;
import io.jccl.cuda.internal.ffm.NativeLibrary;
import org.junit.jupiter.api.Test;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** Without libcuda.so.1 every call fails cleanly with SYSTEM_ERROR and says what to do. */
class NoDriverTest {
    @Test
    void aMissingLibraryGivesHandlesThatThrowTheReason() throws Throwable {
        NativeLibrary lib = NativeLibrary.open("/nonexistent/libcuda.so.1", "no NVIDIA driver found");
        assertThat(lib.isLoaded()).isFalse();
        assertThat(lib.loadFailure()).hasValueSatisfying(m -> assertThat(m).startsWith("no NVIDIA driver found"));
        MethodHandle h = lib.bind("cuInit", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        assertThatThrownBy(() -> {
            int rc = (int) h.invokeExact(0);
            assertThat(rc).isZero();
        }).isInstanceOf(JcclException.class).hasMessageStartingWith("no NVIDIA driver found")
                .matches(e -> ((JcclException) e).result() == Result.SYSTEM_ERROR);
    }

    @Test
    void aMissingSymbolSaysTheLibraryIsTooOld() throws Throwable {
        NativeLibrary libc = NativeLibrary.open("libc.so.6", "no libc");
        assertThat(libc.isLoaded()).isTrue();
        MethodHandle h = libc.bind("cuNoSuchFunction_v9", FunctionDescriptor.ofVoid(JAVA_INT));
        assertThatThrownBy(() -> {
            h.invokeExact(1);
        }).isInstanceOf(JcclException.class)
                .hasMessageContaining("cuNoSuchFunction_v9").hasMessageContaining("older");
    }

    @Test
    void cudaCallsFailCleanlyWhenNoDriverIsInstalled() {
        assumeFalse(CudaLibrary.isLoaded(), "this machine has an NVIDIA driver");
        assertThatThrownBy(CudaDevice::count).isInstanceOf(JcclException.class)
                .hasMessageContaining("no NVIDIA driver found").hasMessageContaining("libcuda.so.1")
                .matches(e -> ((JcclException) e).result() == Result.SYSTEM_ERROR);
        assertThatThrownBy(() -> CudaDevice.get(0)).isInstanceOf(JcclException.class);
        assertThat(CudaDevice.isAvailable()).isFalse();
    }
}
