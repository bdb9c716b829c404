package io.jccl.tools.perf;

import io.jccl.DataType;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PerfOptionsTest {

    static PerfOptions parse(String... args) {
        PerfMain m = new PerfMain();
        new CommandLine(m).parseArgs(args);
        return m.options();
    }

    @Test
    void gpuFlagsSelectTheGpuBackends() {
        assertThat(parse("all_reduce").target()).isEqualTo(PerfTarget.HOST);
        PerfOptions g = parse("all_reduce", "-g", "2");
        assertThat(g.target()).isEqualTo(PerfTarget.JCCL);
        assertThat(g.gpus()).isEqualTo(2);
        assertThat(parse("all_reduce", "-G", "10").graphLaunches()).isEqualTo(10);
        assertThat(parse("all_reduce", "-G", "10").target()).isEqualTo(PerfTarget.JCCL);
        assertThat(parse("all_reduce", "-g", "2", "--backend", "both").target()).isEqualTo(PerfTarget.BOTH);
        assertThat(parse("sendrecv", "-np", "2", "--backend", "nccl").target()).isEqualTo(PerfTarget.NCCL);
        assertThat(PerfTarget.BOTH.gpu()).isTrue();
        assertThat(PerfTarget.HOST.gpu()).isFalse();
    }

    @Test
    void defaultsAreNcclTests() {
        PerfOptions o = parse("all_reduce");
        assertThat(o.collective()).isEqualTo(PerfCollective.ALL_REDUCE);
        assertThat(o.sweep()).isEqualTo(new SizeSweep(32 << 20, 32 << 20, 1 << 20, 1));
        assertThat(o.iters()).isEqualTo(20);
        assertThat(o.warmupIters()).isEqualTo(1);
        assertThat(o.aggIters()).isEqualTo(1);
        assertThat(o.check()).isEqualTo(1);
        assertThat(o.cycles()).isEqualTo(1);
        assertThat(o.types()).containsExactly(DataType.FLOAT32);
        assertThat(o.ops()).containsExactly(OpChoice.SUM);
        assertThat(o.root()).isZero();
        assertThat(o.statMode()).isEqualTo(PerfBackend.StatMode.AVG);
        assertThat(o.processes()).isZero();
        assertThat(o.threads()).isEqualTo(1);
    }

    @Test
    void everyFlag() {
        PerfOptions o = parse("broadcast_perf", "-b", "8", "-e", "128M", "-f", "4", "-i", "64", "-n", "50", "-w", "5",
                "-m", "3", "-N", "2", "-c", "2", "-o", "all", "-d", "all", "-r", "all", "-a", "3", "-z", "1",
                "-T", "30", "-np", "4", "-g", "1", "-J", "out.json", "--csv", "out.csv");
        assertThat(o.collective()).isEqualTo(PerfCollective.BROADCAST);
        assertThat(o.sweep()).isEqualTo(new SizeSweep(8, 128L << 20, 64, 4));
        assertThat(o.iters()).isEqualTo(50);
        assertThat(o.warmupIters()).isEqualTo(5);
        assertThat(o.aggIters()).isEqualTo(3);
        assertThat(o.cycles()).isEqualTo(2);
        assertThat(o.check()).isEqualTo(2);
        assertThat(o.ops()).containsExactly(OpChoice.values());
        assertThat(o.types()).containsExactly(DataType.values());
        assertThat(o.root()).isEqualTo(-1);
        assertThat(o.statMode()).isEqualTo(PerfBackend.StatMode.MAX);
        assertThat(o.blocking()).isEqualTo(1);
        assertThat(o.timeoutSec()).isEqualTo(30);
        assertThat(o.processes()).isEqualTo(4);
        assertThat(o.jsonFile()).isEqualTo(Path.of("out.json"));
        assertThat(o.csvFile()).isEqualTo(Path.of("out.csv"));
        assertThat(o.roots(3)).containsExactly(0, 1, 2);
    }

    @Test
    void longOptionsAndTypeAliases() {
        PerfOptions o = parse("all_gather", "--minbytes", "1K", "--maxbytes", "1M", "--stepfactor", "2",
                "--datatype", "half", "--op", "max", "--nthreads", "4", "--output_file", "r.json");
        assertThat(o.sweep().minBytes()).isEqualTo(1024);
        assertThat(o.types()).containsExactly(DataType.FLOAT16);
        assertThat(o.ops()).containsExactly(OpChoice.MAX);
        assertThat(o.threads()).isEqualTo(4);
        assertThat(parse("reduce", "-d", "bfloat16").types()).containsExactly(DataType.BFLOAT16);
        assertThat(parse("reduce", "-d", "f8e4m3").types()).containsExactly(DataType.FLOAT8_E4M3);
        assertThat(parse("reduce", "-o", "mulsum").ops()).containsExactly(OpChoice.MULSUM);
    }

    @Test
    void unrootedCollectivesAndOplessOnesVisitOnePlaceholder() {
        PerfOptions o = parse("all_gather", "-o", "all");
        assertThat(o.roots(4)).containsExactly(-1);
        assertThat(o.opsToRun()).containsExactly((OpChoice) null);
        assertThat(parse("sendrecv", "-o", "all").opsToRun()).hasSize(6);
        assertThatThrownBy(() -> parse("broadcast", "-r", "5").roots(4)).hasMessageContaining("-r 5");
    }

    @Test
    void badValuesAreRejectedWithTheFlagName() {
        assertThatThrownBy(() -> parse("all_reduce", "-n", "0")).hasMessageContaining("-n");
        assertThatThrownBy(() -> parse("all_reduce", "-m", "0")).hasMessageContaining("-m");
        assertThatThrownBy(() -> parse("all_reduce", "-b", "1M", "-e", "1K")).hasMessageContaining("minbytes");
        assertThatThrownBy(() -> parse("all_reduce", "-d", "float128")).hasMessageContaining("float128");
        assertThatThrownBy(() -> parse("all_reduce", "-o", "xor")).hasMessageContaining("xor");
        assertThatThrownBy(() -> parse("all_reduce", "-a", "7")).hasMessageContaining("-a");
        assertThatThrownBy(() -> parse("all_reduce", "-g", "2", "--backend", "host")).hasMessageContaining("GPU backend");
        assertThatThrownBy(() -> parse("all_reduce", "-G", "5", "--backend", "host")).hasMessageContaining("GPU backend");
        assertThatThrownBy(() -> parse("all_reduce", "--backend", "cuda")).hasMessageContaining("--backend");
        assertThat(parse("all_reduce", "-np", "2", "-g", "2", "--backend", "jccl").gpus())
                .as("nccl-tests' -g with several processes: GPUs per process").isEqualTo(2);
        assertThatThrownBy(() -> parse("all_reduce", "-t", "2", "--backend", "both")).hasMessageContaining("-t");
        assertThatThrownBy(() -> parse("all_reduce", "-np", "2", "-t", "2")).hasMessageContaining("cannot be combined");
        assertThatThrownBy(() -> parse("all_reduce", "-T", "-1")).hasMessageContaining("-T");
    }

    @Test
    void registrationIsNcclTestsDashR() {
        assertThat(parse("all_reduce").registration()).isEqualTo(Registration.NONE);
        assertThat(parse("all_reduce", "-R", "0").registration()).isEqualTo(Registration.NONE);
        assertThat(parse("all_reduce", "-R", "1").registration()).isEqualTo(Registration.BUFFERS);
        assertThat(parse("all_reduce", "-g", "2", "-R", "2").registration()).isEqualTo(Registration.WINDOWS);
        assertThat(parse("all_reduce", "--local_register", "2", "--backend", "both").registration())
                .isEqualTo(Registration.WINDOWS);
        assertThat(Registration.WINDOWS.code()).isEqualTo(2);
        for (String bad : new String[]{"3", "-1", "yes", " "}) {
            assertThatThrownBy(() -> parse("all_reduce", "-R", bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("-R").hasMessageContaining("0 (none)").hasMessageContaining("2 (symmetric")
                    .hasMessageContaining("'" + bad + "'");
        }
    }

    @Test
    void childArgsDropNp() {
        assertThat(PerfMain.childArgs(List.of("all_reduce", "-np", "4", "-b", "8", "--np=2", "-e", "1M")))
                .containsExactly("all_reduce", "-b", "8", "-e", "1M");
    }

    @Test
    void childArgsDropTheHostfileOptions() {
        assertThat(PerfMain.childArgs(List.of("all_reduce", "--hostfile", "h", "-np", "4", "--rsh", "ip netns exec",
                "--master-addr=10.0.0.1", "-b", "8"))).containsExactly("all_reduce", "-b", "8");
    }

    @Test
    void minBandwidthComesFromTheEnvironment() {
        assertThat(PerfMain.minBusBw(Map.of())).isEqualTo(-1);
        assertThat(PerfMain.minBusBw(Map.of("NCCL_TESTS_MIN_BW", "12.5"))).isEqualTo(12.5);
        assertThat(PerfMain.minBusBw(Map.of("NCCL_TESTS_MIN_BW", "fast"))).isEqualTo(-1);
    }

    @Test
    void usageErrorsExitWith2AndSayWhy() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        int code;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = PerfMain.run(new String[]{"all_reduce", "-b", "1Q"});
        } finally {
            System.setErr(saved);
        }
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("bad size '1Q'");
    }

    @Test
    void threadsCannotBeCombinedWithALauncherEnvironment() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8);
        PerfMain m = new PerfMain().with(Map.of("RANK", "0", "WORLD_SIZE", "2"), ps, ps, "all_reduce", "-t", "2");
        CommandLine cl = new CommandLine(m);
        cl.setErr(new java.io.PrintWriter(out, true));
        assertThat(cl.execute("all_reduce", "-t", "2")).isEqualTo(2);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("RANK/WORLD_SIZE");
    }

    @Test
    void perfBindsRanksUnlessTheOptionOrTheEnvironmentSaysOtherwise() {
        assertThat(PerfMain.perfBinding(null, null)).isEqualTo("auto");
        assertThat(PerfMain.perfBinding(null, " ")).isEqualTo("auto");
        assertThat(PerfMain.perfBinding(null, "none")).isEqualTo("none");
        assertThat(PerfMain.perfBinding("core", "none")).isEqualTo("core");
        assertThat(PerfMain.perfBinding("none", null)).isEqualTo("none");
    }
}
