package io.jccl.cuda.internal.kernels;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Checks that the committed PTX is what src/main/cuda compiles to. Every module records the digest of the sources it
 * was built from (build-ptx.sh's first line); a module whose digest is not the sources' is stale, which needs no
 * compiler to tell. When nvcc is installed (the release that wrote the committed files), build-ptx.sh also rebuilds
 * {@link #SPOT_CHECKED} modules, or every module with {@code -Djccl.ptx.fullCheck=true}, and their code must be
 * the committed code line for line (comment lines, which name the compiler build, are ignored).
 */
class PtxRegenerationTest {
    private static final Path MODULE = Path.of(System.getProperty("user.dir"));
    private static final Path COMMITTED = MODULE.resolve("src/main/resources/io/jccl/cuda/kernels");
    private static final Path SOURCES = MODULE.resolve("src/main/cuda");
    /** One module per source file: rebuilding all 25 takes nvcc about two minutes on two cores. */
    private static final String SPOT_CHECKED = "copy reduce_f32_sum";

    @Test
    void everyModuleWasBuiltFromTheCurrentSources() throws Exception {
        assumeTrue(Files.isDirectory(SOURCES), "run from the jccl-cuda module directory");
        String line = "// jccl-sources sha256 " + sourcesDigest();
        List<String> stale = committed().stream()
                .filter(p -> !firstLine(p).equals(line)).map(p -> p.getFileName().toString()).toList();
        assertThat(stale).as("PTX not built from the current src/main/cuda: run jccl-cuda/build-ptx.sh and commit")
                .isEmpty();
    }

    @Test
    void committedPtxMatchesTheCudaSources(@TempDir Path out) throws Exception {
        assumeTrue(Files.isExecutable(MODULE.resolve("build-ptx.sh")), "run from the jccl-cuda module directory");
        String nvcc = run(out, null, "nvcc", "--version");
        assumeTrue(nvcc != null, "nvcc not installed");
        String release = releaseOf(nvcc);
        String committedRelease = releaseOf(Files.readString(COMMITTED.resolve("reduce_f32_sum.ptx")));
        assumeTrue(release != null && release.equals(committedRelease),
                "nvcc " + release + " differs from the release that wrote the PTX (" + committedRelease + ")");

        boolean full = Boolean.getBoolean("jccl.ptx.fullCheck");
        String log = run(out, full ? null : SPOT_CHECKED, MODULE.resolve("build-ptx.sh").toString(), out.toString());
        assertThat(log).as("build-ptx.sh output").isNotNull();
        List<Path> committed = committed().stream()
                .filter(p -> full || (" " + SPOT_CHECKED + " ").contains(" " + p.getFileName().toString()
                        .replace(".ptx", "") + " ")).toList();
        assertThat(committed).hasSize(full ? committed().size() : SPOT_CHECKED.split(" ").length);
        for (Path c : committed) {
            Path fresh = out.resolve(c.getFileName());
            assertThat(fresh).as("rebuilt " + c.getFileName()).exists();
            assertThat(code(fresh)).as(c.getFileName() + " is stale: run jccl-cuda/build-ptx.sh and commit")
                    .isEqualTo(code(c));
        }
    }

    private static List<Path> committed() throws IOException {
        try (Stream<Path> s = Files.list(COMMITTED)) {
            return s.filter(p -> p.toString().endsWith(".ptx")).sorted().toList();
        }
    }

    /** build-ptx.sh's digest: SHA-256 over the files of src/main/cuda, concatenated in byte order of their names. */
    private static String sourcesDigest() throws IOException, NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (Stream<Path> s = Files.list(SOURCES)) {
            for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
                sha.update(Files.readAllBytes(p));
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static String firstLine(Path p) {
        try (var r = Files.newBufferedReader(p, StandardCharsets.US_ASCII)) {
            String l = r.readLine();
            return l == null ? "" : l;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String releaseOf(String text) {
        var m = java.util.regex.Pattern.compile("release (\\d+\\.\\d+), V([\\d.]+)").matcher(text);
        return m.find() ? m.group(2) : null;
    }

    private static List<String> code(Path p) throws IOException {
        return Files.readAllLines(p, StandardCharsets.US_ASCII).stream().filter(l -> !l.startsWith("//")).toList();
    }

    private static String run(Path dir, String only, String... cmd) throws InterruptedException {
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
            pb.environment().put("PTXAS_CHECK", "0");   // only the PTX text is compared
            if (only != null) {
                pb.environment().put("ONLY", only);
            }
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
