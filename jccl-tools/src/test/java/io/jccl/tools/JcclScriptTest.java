package io.jccl.tools;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The root {@code jccl} script's paths that need neither a build nor Maven. */
class JcclScriptTest {
    private static final Path SCRIPT = Path.of("..", "jccl").toAbsolutePath().normalize();

    record Result(int code, String out) {
    }

    private static Result run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(List.of("bash", SCRIPT.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).directory(Path.of("/").toFile());
        pb.environment().remove("JAVA_HOME");
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), out);
    }

    @Test
    void theScriptIsExecutableAndValidBash() throws Exception {
        assertThat(Files.isExecutable(SCRIPT)).isTrue();
        Process p = new ProcessBuilder("bash", "-n", SCRIPT.toString()).redirectErrorStream(true).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(p.getInputStream().readAllBytes())).isZero();
    }

    @Test
    void helpWorksFromAnyDirectoryWithoutAJdk() throws Exception {
        Result r = run(Map.of("JCCL_JDK_SEARCH", "/nonexistent"), "help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("usage: ./jccl").contains("demo").contains("perf").contains("run -np N")
                .contains("test").contains("params").contains("plot");
    }

    @Test
    void saysWhereItLookedWhenNoJdkIsFound() throws Exception {
        Result r = run(Map.of("JAVA_HOME", "/nonexistent-jdk", "JCCL_JDK_SEARCH", "/nonexistent-dir/*", "JCCL_NO_PREBUILT", "1"),
                "perf");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).contains("no JDK 25 or newer found").contains("/nonexistent-jdk")
                .contains("/nonexistent-dir/*").contains("apt-get install temurin-25-jdk").contains("JAVA_HOME");
    }

    @Test
    void aPrebuiltRunNeedsItsJars() throws Exception {
        Path empty = Files.createTempDirectory("jccl-lib");
        try {
            Result r = run(Map.of("JCCL_JAVA", "/bin/true", "JCCL_LIB", empty.toString()), "perf", "all_reduce");
            assertThat(r.code()).isEqualTo(1);
            assertThat(r.out()).contains("no jars in " + empty).contains("bundle.sh");
        } finally {
            Files.deleteIfExists(empty);
        }
    }

    @Test
    void javaAddsClassPathEntriesAfterJcclsOwn() throws Exception {
        Path dir = Files.createTempDirectory("jccl-cp");
        try {
            Path lib = Files.createDirectory(dir.resolve("lib"));
            Files.createFile(lib.resolve("jccl-tools.jar"));
            // a java launcher that prints its arguments, one per line
            Path launcher = Files.writeString(dir.resolve("java"), "#!/bin/sh\nprintf '%s\\n' \"$@\"\n");
            assertThat(launcher.toFile().setExecutable(true)).isTrue();
            Result r = run(Map.of("JCCL_JAVA", launcher.toString(), "JCCL_LIB", lib.toString()),
                    "java", "-cp", "/opt/app/app.jar", "com.example.Main", "arg");
            assertThat(r.code()).as(r.out()).isZero();
            assertThat(r.out().lines().toList()).containsSubsequence("-cp", lib + "/*:/opt/app/app.jar",
                    "com.example.Main", "arg");
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    @Test
    void unknownCommandsFail() throws Exception {
        Result r = run(Map.of(), "frobnicate");
        assertThat(r.code()).isNotZero();
        assertThat(r.out()).contains("unknown command 'frobnicate'");
    }
}
