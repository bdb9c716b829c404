package io.jccl.tools.params;

import io.jccl.internal.param.ParamSources;
import io.jccl.tools.Cli;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ParamsMainTest {
    record Result(int code, List<String> lines) {
    }

    static Result run(ParamSources sources, String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ParamsMain m = new ParamsMain().with(sources, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        int code = Cli.commandLine(m).execute(args);
        return new Result(code, bytes.toString(StandardCharsets.UTF_8).lines().toList());
    }

    @Test
    void printsNameValueSourceDefaultAndDoc() {
        Result r = run(ParamSources.of(Map.of("JCCL_TIMEOUT_MS", "5000"), Map.of("NCCL_DEBUG", "INFO")));
        assertThat(r.code()).isZero();
        assertThat(r.lines().getFirst()).matches("\\s+NAME\\s+VALUE\\s+SOURCE\\s+DEFAULT\\s+DESCRIPTION");
        assertThat(r.lines()).contains("Logging", "Communicator", "Topology", "Tuning");
        assertThat(r.lines()).anyMatch(l -> l.matches("\\s+NCCL_DEBUG\\s+INFO\\s+environment\\s+WARN\\s+log level: .*"));
        assertThat(r.lines()).anyMatch(l -> l.matches("\\s+JCCL_TIMEOUT_MS\\s+5000\\s+system property\\s+120000\\s+.*"));
        assertThat(r.lines()).anyMatch(l -> l.matches("\\s+NCCL_BUFFSIZE\\s+4194304\\s+default\\s+4194304\\s+.*"));
        assertThat(r.lines()).noneMatch(l -> l.contains("jccl.spins"));
    }

    @Test
    void setAllAndFilters() {
        ParamSources s = ParamSources.of(Map.of(), Map.of("NCCL_ALGO", "ring", "NCCL_PROTO", "Simple"));
        Result set = run(s, "--set");
        assertThat(set.lines().stream().filter(l -> l.startsWith("  NCCL_"))).hasSize(2);
        Result all = run(s, "--all", "spins");
        assertThat(all.lines()).anyMatch(l -> l.contains("jccl.spins")).anyMatch(l -> l.contains("jccl.proxySpins"))
                .noneMatch(l -> l.contains("NCCL_ALGO"));
    }

    @Test
    void warnsAboutTyposAndBadValuesAndCheckFails() {
        ParamSources s = ParamSources.of(Map.of(), Map.of("NCCL_SOCKET_IFNAM", "eth0", "NCCL_BUFFSIZE", "lots",
                "NCCL_IB_HCA", "mlx5_0"));
        Result r = run(s);
        assertThat(r.code()).isZero();
        assertThat(r.lines()).contains("warning: NCCL_SOCKET_IFNAM is set but JCCL does not know it; did you mean "
                + "NCCL_SOCKET_IFNAME? (./jccl params lists every parameter)",
                "note: NCCL_IB_HCA has no effect in JCCL (an NCCL setting JCCL does not implement)");
        assertThat(r.lines()).anyMatch(l -> l.startsWith("warning: NCCL_BUFFSIZE=lots (environment) is not an integer"));
        assertThat(r.lines()).anyMatch(l -> l.matches("\\s+NCCL_BUFFSIZE\\s+lots \\(invalid\\)\\s+environment.*"));
        assertThat(run(s, "--check").code()).isEqualTo(1);
        assertThat(run(ParamSources.of(Map.of(), Map.of("NCCL_IB_HCA", "x")), "--check").code()).isZero();
    }

    @Test
    void markdownHasATablePerCategory() {
        Result r = run(ParamSources.of(Map.of(), Map.of()), "--markdown");
        assertThat(r.lines()).contains("### Logging", "| Name | Type | Default | Allowed | Description |",
                "### Tuning");
        assertThat(r.lines()).anyMatch(l -> l.startsWith("| `NCCL_DEBUG` | name | `WARN` | `NONE\\|VERSION\\|WARN\\|INFO\\|TRACE` |"));
        assertThat(r.lines()).anyMatch(l -> l.startsWith("| `-Djccl.spins` | integer | `-1` |"));
    }
}
