package io.jccl.tools.perf;

import io.jccl.cuda.CudaDevice;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code jccl perf -R 2 --backend jccl} on 2 GPUs of one process: the perf buffers are JCCL windows, every size is
 * checked ({@code -c 1}) with no wrong element, the header shows {@code register: 2}, the kernel line after the table
 * names what ran at each size, and the windows are closed at the end (the run exits 0). {@code -R 1} says once that
 * it behaves as {@code -R 2}. The sizes stay in the LL range, where the LL kernels run with windows or without: a
 * 256 KiB run (the symmetric two-shot) did not end within 15 minutes on the CPU emulator with perf's default
 * options, so the symmetric kernels are shown by gpu-run.sh's sym phase on a GPU and tested on windows directly, with
 * small options, by the window tests. Needs 2 GPUs (or the CPU emulator). Skipped without.
 */
@Tag("gpu")
class GpuPerfWindowsGpuTest {
    @Test
    void allReduceOnWindowsRunsTheSymmetricKernels() {
        assumeGpus();
        String out = perf("all_reduce", "-g", "2", "-R", "2", "--backend", "jccl", "-b", "8", "-e", "4K", "-f", "16",
                "-c", "1", "-n", "2", "-w", "1");
        assertThat(out).contains("register: 2", "buffers in JCCL windows (-R 2)", "# Out of bounds values : 0 OK",
                "# JCCL kernels on the windows (all_reduce, by size): ");
    }

    @Test
    void allGatherOnWindowsRunsTheSymmetricKernels() {
        assumeGpus();
        String out = perf("all_gather", "-g", "2", "-R", "1", "--backend", "jccl", "-b", "8", "-e", "4K", "-f", "16",
                "-c", "1", "-n", "2", "-w", "1");
        assertThat(out).contains("register: 1", "JCCL has no separate user-buffer registration",
                "# Out of bounds values : 0 OK", "# JCCL kernels on the windows (all_gather, by size): ");
    }

    @Test
    void computeBesideTimesTheCallsBesideAComputeKernelOnTheCopyEngines() {
        assumeGpus();
        String before = System.setProperty("jccl.cuda.ctaPolicy", "zero");
        try {
            String out = perf("all_gather", "-g", "2", "-R", "2", "--backend", "jccl", "-b", "64K", "-e", "64K",
                    "-c", "1", "-n", "1", "-w", "1", "--compute-beside");
            assertThat(out).contains("# Out of bounds values : 0 OK",
                    "# Compute beside JCCL all_gather: jccl_compute_probe on GPU 0 (",
                    "# JCCL kernels on the windows (all_gather, by size): ce ");
            // a row per placement: bytes, then five positive times in ms and the share hidden
            var rows = java.util.regex.Pattern.compile("(?m)^ +65536( +[0-9]+\\.[0-9]{3}){5} +[0-9]+%$")
                    .matcher(out).results().count();
            assertThat(rows).as(out).isEqualTo(2);
            assertThat(out).doesNotContainPattern("(?m)^ +[0-9]+( +[0-9.]+)* +0\\.000 ");
        } finally {
            if (before == null) {
                System.clearProperty("jccl.cuda.ctaPolicy");
            } else {
                System.setProperty("jccl.cuda.ctaPolicy", before);
            }
        }
    }

    /** sendrecv as a putSignal into the next rank's window and a waitSignal: every element checked. */
    @Test
    void sendRecvByPutSignalDeliversEveryElement() {
        assumeGpus();
        String out = perf("sendrecv", "-g", "2", "-R", "2", "--backend", "jccl", "-b", "8", "-e", "64K", "-f", "64",
                "-c", "2", "-n", "2", "-w", "1", "--put-signal");
        assertThat(out).contains("# Out of bounds values : 0 OK", "register: 2");
        assertThat(out).containsPattern("(?m)^ +32768 +8192 +float +sum +-1 .* 0 +[0-9.]+ ");
    }

    @Test
    void putSignalNeedsWindowsAndSendRecv() {
        assertThat(perfFails("all_reduce", "-g", "2", "-R", "2", "--backend", "jccl", "--put-signal"))
                .contains("--put-signal measures sendrecv with -R 1 or 2");
        assertThat(perfFails("sendrecv", "-g", "2", "--backend", "jccl", "--put-signal"))
                .contains("--put-signal measures sendrecv with -R 1 or 2");
    }

    @Test
    void computeBesideNeedsAGpuBackend() {
        assertThat(perfFails("all_reduce", "--backend", "host", "--compute-beside"))
                .contains("--compute-beside needs a GPU backend");
    }

    private static String perfFails(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        CommandLine cl = new CommandLine(new PerfMain().with(Map.of(), ps, ps, args));
        cl.setErr(new java.io.PrintWriter(bytes, true));
        assertThat(cl.execute(args)).isNotZero();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static void assumeGpus() {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 2, "needs 2 GPUs (or the CPU emulator)");
    }

    /** Runs {@code jccl perf args} without the JIT warm-up; checks it exited 0 and returns what it printed. */
    private static String perf(String... args) {
        String before = System.setProperty("JCCL_PERF_JIT_WARMUP", "0");
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            PrintStream ps = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            PerfMain m = new PerfMain().with(Map.of(), ps, ps, args);
            CommandLine cl = new CommandLine(m);
            cl.setErr(new java.io.PrintWriter(bytes, true));
            int rc = cl.execute(args);
            String out = bytes.toString(StandardCharsets.UTF_8);
            assertThat(rc).as(out).isZero();
            return out;
        } finally {
            if (before == null) {
                System.clearProperty("JCCL_PERF_JIT_WARMUP");
            } else {
                System.setProperty("JCCL_PERF_JIT_WARMUP", before);
            }
        }
    }
}
