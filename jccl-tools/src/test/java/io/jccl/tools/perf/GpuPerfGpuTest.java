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
 * {@code jccl perf} on GPUs with the JCCL backend, nccl-tests' {@code -np 2 -g 2}: two processes of two GPUs each, a
 * 4-rank communicator, each process closing its ranks inside one host group (perf's closeAll; this found the close
 * barriers recorded into that group and never run). Every size is checked ({@code -c 1}) and must have no wrong
 * element. Needs 4 GPUs (or the CPU emulator, which has them). Skipped without.
 */
@Tag("gpu")
class GpuPerfGpuTest {
    @Test
    void twoProcessesOfTwoGpusEach() {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 4,
                "needs 4 GPUs (two processes' kernels run together; the CPU emulator has them)");
        String out = perf(Map.of(), "all_gather", "-np", "2", "-g", "2", "--backend", "jccl", "-b", "8", "-e", "256",
                "-f", "32", "-c", "1", "-n", "2", "-w", "1");
        assertThat(out).contains("# Out of bounds values : 0 OK", "Rank  2 Group  0 Pid", "Rank  3 Group  0 Pid");
    }

    /**
     * Runs {@code jccl perf args} without the JIT warm-up (JCCL_PERF_JIT_WARMUP=0, which the launched ranks get too:
     * the CPU emulator runs a kernel in milliseconds); checks it exited 0 and returns what it printed.
     */
    private static String perf(Map<String, String> env, String... args) {
        String before = System.setProperty("JCCL_PERF_JIT_WARMUP", "0");
        try {
            return perfAsIs(env, args);
        } finally {
            if (before == null) {
                System.clearProperty("JCCL_PERF_JIT_WARMUP");
            } else {
                System.setProperty("JCCL_PERF_JIT_WARMUP", before);
            }
        }
    }

    private static String perfAsIs(Map<String, String> env, String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        PerfMain m = new PerfMain().with(env, ps, ps, args);
        CommandLine cl = new CommandLine(m);
        cl.setErr(new java.io.PrintWriter(bytes, true));
        int rc = cl.execute(args);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(rc).as(out).isZero();
        return out;
    }
}
