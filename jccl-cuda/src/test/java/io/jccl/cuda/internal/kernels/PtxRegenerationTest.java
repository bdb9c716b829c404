package io.jccl.cuda.internal.kernels;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * When nvcc is installed, rebuilds the PTX from src/main/cuda with build-ptx.sh and checks that the committed files
 * are what the sources compile to (comment lines, which name the compiler build, are ignored). Skipped without
 * nvcc or with another nvcc release than the one that wrote the committed files.
 */
class PtxRegenerationTest {
    private static final Path MODULE = Path.of(System.getProperty("user.dir"));
    private static final Path COMMITTED = MODULE.resolve("src/main/resources/io/jccl/cuda/kernels");

    @Test
    void committedPtxMatchesTheCudaSources(@TempDir Path out) throws Exception {
        assumeTrue(Files.isExecutable(MODULE.resolve("build-ptx.sh")), "run from the jccl-cuda module directory");
        String nvcc = run(out, "nvcc", "--version");
        assumeTrue(nvcc != null, "nvcc not installed");
        String release = releaseOf(nvcc);
        String committedRelease = releaseOf(Files.readString(COMMITTED.resolve("reduce_f32_sum.ptx")));
        assumeTrue(release != null && release.equals(committedRelease),
                "nvcc " + release + " differs from the release that wrote the PTX (" + committedRelease + ")");

        String log = run(out, MODULE.resolve("build-ptx.sh").toString(), out.toString());
        assertThat(log).as("build-ptx.sh output").isNotNull();
        List<Path> committed;
        try (Stream<Path> s = Files.list(COMMITTED)) {
            committed = s.filter(p -> p.toString().endsWith(".ptx")).sorted().toList();
        }
        assertThat(committed).isNotEmpty();
        for (Path c : committed) {
            Path fresh = out.resolve(c.getFileName());
            assertThat(fresh).as("rebuilt " + c.getFileName()).exists();
            assertThat(code(fresh)).as(c.getFileName() + " is stale: run jccl-cuda/build-ptx.sh and commit")
                    .isEqualTo(code(c));
        }
    }

    private static String releaseOf(String text) {
        var m = java.util.regex.Pattern.compile("release (\\d+\\.\\d+), V([\\d.]+)").matcher(text);
        return m.find() ? m.group(2) : null;
    }

    private static List<String> code(Path p) throws IOException {
        return Files.readAllLines(p, StandardCharsets.US_ASCII).stream().filter(l -> !l.startsWith("//")).toList();
    }

    private static String run(Path dir, String... cmd) throws InterruptedException {
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
            pb.environment().put("PTXAS_CHECK", "0");   // only the PTX text is compared
            Process p = pb.start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
                return null;
            }
            return text;
        } catch (IOException e) {
            return null;
        }
    }
}
