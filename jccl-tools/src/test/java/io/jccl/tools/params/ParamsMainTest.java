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
        String secret = "0f".repeat(32);
        Result r = run(ParamSources.of(Map.of("JCCL_TIMEOUT_MS", "5000"), Map.of("NCCL_DEBUG", "INFO",
                "JCCL_COMM_SECRET", secret)));
        assertThat(r.code()).isZero();
        assertThat(r.lines().getFirst()).matches("\\s+NAME\\s+VALUE\\s+SOURCE\\s+DEFAULT\\s+DESCRIPTION");
        assertThat(r.lines()).contains("Logging", "Communicator", "Topology", "Tuning");
        assertThat(r.lines()).anyMatch(l -> l.matches("\\s+NCCL_DEBUG\\s+INFO\\s+environment\\s+WARN\\s+log level: .*"));
        assertThat(r.lines()).anyMatch(l -> l.matches("\\s+JCCL_TIMEOUT_MS\\s+5000\\s+system property\\s+120000\\s+.*"));
        assertThat(r.lines()).anyMatch(l -> l.matches("\\s+NCCL_BUFFSIZE\\s+4194304\\s+default\\s+4194304\\s+.*"));
        assertThat(r.lines()).noneMatch(l -> l.contains("jccl.spins"));
        assertThat(r.lines()).anyMatch(l -> l.matches("\\s+JCCL_COMM_SECRET\\s+\\(hidden, 64 characters\\)\\s+environment.*"))
                .noneMatch(l -> l.contains(secret));
    }

    @Test
    void docsParamsMdIsUpToDate() throws java.io.IOException {
        java.nio.file.Path doc = java.nio.file.Path.of("..", "docs", "params.md");
        String text = java.nio.file.Files.readString(doc);
        String begin = "<!-- BEGIN GENERATED: ./jccl params --markdown -->\n";
        String end = "<!-- END GENERATED -->";
        assertThat(text).contains(begin, end);
        String generated = text.substring(text.indexOf(begin) + begin.length(), text.indexOf(end));
        Result r = run(ParamSources.of(Map.of(), Map.of()), "--markdown");
        assertThat(generated).as("docs/params.md is stale: regenerate the table with ./jccl params --markdown")
                .isEqualTo(String.join("\n", r.lines()) + "\n");
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
