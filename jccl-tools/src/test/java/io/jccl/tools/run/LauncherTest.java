package io.jccl.tools.run;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LauncherTest {

    private static LaunchSpec parse(String... args) {
        CommandLine cl = Launcher.commandLine();
        cl.parseArgs(args);
        return ((Launcher) cl.getCommand()).toSpec();
    }

    @Test
    void everythingAfterTheMainClassBelongsToTheRanks() {
        LaunchSpec s = parse("-np", "4", "--", "com.example.Train", "--epochs", "3", "-v");
        assertThat(s.nRanks()).isEqualTo(4);
        assertThat(s.mainClass()).isEqualTo("com.example.Train");
        assertThat(s.args()).containsExactly("--epochs", "3", "-v");
        assertThat(s.timeout()).isNull();
        assertThat(s.labels()).isEqualTo(LaunchSpec.Labels.ALL);
        assertThat(parse("-np", "2", "com.example.Train", "-x").args()).containsExactly("-x");
    }

    @Test
    void classpathAndTimeout() {
        LaunchSpec s = parse("-n", "2", "-cp", "a.jar" + File.pathSeparator + "b", "--timeout", "1.5", "Main");
        assertThat(s.extraClasspath()).containsExactly("a.jar", "b");
        assertThat(s.timeout()).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void badArgumentsExitWith2() {
        CommandLine cl = Launcher.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute("-np", "0", "Main")).isEqualTo(2);
        assertThat(err.toString()).contains("-np must be at least 1");
        assertThat(Launcher.commandLine().setErr(new PrintWriter(new StringWriter())).execute("Main")).isEqualTo(2);
    }

    @Test
    void specValidation() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LaunchSpec.of(0, "M", List.of()))
                .hasMessageContaining("at least 1");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LaunchSpec.of(1, " ", List.of()))
                .hasMessageContaining("empty");
    }
}
