package io.jccl.examples;

import io.jccl.cuda.CudaDevice;
import io.jccl.tools.run.JvmCommandLine;
import io.jccl.tools.run.LaunchResult;
import io.jccl.tools.run.LaunchSpec;
import io.jccl.tools.run.LocalJob;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The GPU examples; skipped without an NVIDIA GPU (except the check of what they print without one). */
@Tag("gpu")
class GpuExamplesTest {

    @Test
    void multiDeviceExampleSumsOnEveryGpu() {
        assumeTrue(CudaDevice.isAvailable(), "needs an NVIDIA GPU");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        boolean ok = MultiDeviceExample.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), 1 << 16, 0);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(out).isTrue();
        int n = CudaDevice.count();
        assertThat(out).contains("  GPU 0: ", "  Device 0 initialized with data value 0",
                String.format("  Device %d correctly received sum: %d", n - 1, n * (n - 1) / 2));
    }

    @Test
    void oneDevicePerProcessExampleRunsUnderTheLauncher() {
        assumeTrue(CudaDevice.isAvailable(), "needs an NVIDIA GPU");
        List<String> lines = launch(OneDevicePerProcessExample.class, List.of());
        assertThat(lines).contains("[0] Device 0 correctly received sum: 1", "[1] Device 1 correctly received sum: 3");
    }

    @Test
    void putSignalExampleHandsEachRankItsNeighboursBlock() {
        assumeTrue(CudaDevice.isAvailable(), "needs an NVIDIA GPU");
        List<String> lines = launch(PutSignalExample.class, List.of("4096"));
        assertThat(lines).contains("[0] Rank 0 received rank 1's block of 4096 floats through putSignal",
                "[1] Rank 1 received rank 0's block of 4096 floats through putSignal");
    }

    @Test
    void copyEngineAllGatherExampleRunsOnTheCopyEngines() {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 2, "needs 2 GPUs (or the CPU emulator)");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        boolean ok = CopyEngineAllGatherExample.run(List.of(CudaDevice.get(0), CudaDevice.get(1)), 30_011,
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(out).isTrue();
        assertThat(out).contains("Rank 0: allGather of 30011 floats per rank into a window runs ce",
                "Rank 1: allGather of 30011 floats per rank into a window runs ce",
                "Rank 0: every rank's 30011 floats arrived through the copy engines",
                "Rank 1: every rank's 30011 floats arrived through the copy engines");
    }

    @Test
    void symmetricAllReduceExampleReadsThePeersWindows() {
        assumeTrue(CudaDevice.isAvailable(), "needs an NVIDIA GPU");
        List<String> lines = launch(SymmetricAllReduceExample.class, List.of("2000000"));
        assertThat(lines).anyMatch(l -> l.startsWith("[0] Rank 0: allReduce of 2000000 floats runs sym-"))
                .contains("[0] Rank 0: the sum of 2 ranks' 2000000 floats is right, on every rank, through the windows",
                        "[1] Rank 1: the sum of 2 ranks' 2000000 floats is right, on every rank, through the windows");
    }

    @Test
    void severalDevicesPerProcessExampleRunsUnderTheLauncher() {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 4,
                "needs 4 GPUs (two processes' kernels run together; the CPU emulator has them)");
        List<String> lines = launch(SeveralDevicesPerProcessExample.class, List.of("2"));
        assertThat(lines).contains("[0] Device 0 correctly received sum: 6", "[0] Device 1 correctly received sum: 10",
                "[1] Device 2 correctly received sum: 6", "[1] Device 3 correctly received sum: 10");
    }

    /** Runs {@code main} in 2 processes under the launcher; checks that it exited 0 and returns its output lines. */
    private static List<String> launch(Class<?> main, List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        LaunchSpec spec = LaunchSpec.of(2, main.getName(), args).withTimeout(Duration.ofSeconds(120));
        // JvmCommandLine.current() passes this JVM's jccl.* properties on (surefire sets them as properties, not as
        // JVM flags): on the CPU emulator jccl.cuda.library is how the ranks find their "GPUs"
        LaunchResult r = new LocalJob(spec, JvmCommandLine.current(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(out, true, StandardCharsets.UTF_8)).run();
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(r.exitCode()).as(text).isZero();
        return text.lines().toList();
    }

    @Test
    void withoutAGpuTheExamplesSaySoLikeNcclsDo() {
        assumeFalse(CudaDevice.isAvailable(), "a GPU is present");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertThat(MultiDeviceExample.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), 16, 0)).isFalse();
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("ERROR: No CUDA devices found on this system"
                + System.lineSeparator());
    }
}
