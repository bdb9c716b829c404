package io.jccl.examples;

import io.jccl.Communicator;
import io.jccl.cuda.CudaDevice;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JCCL used as a library both ways an application can: on the module path by a program whose module-info says
 * {@code requires io.jccl; requires io.jccl.cuda;}, and on the class path. The consumer in
 * {@code src/test/resources/module-consumer} (a 2-rank float allReduce, one rank per thread, checked element by
 * element) is compiled here with the JDK's compiler against the jccl-core and jccl-cuda jars (their classes
 * directories under {@code mvn test}) and run in a JVM of its own, the running one's {@code java}:
 * <ul>
 *   <li>without flags: it works; reductions run scalar (JCCL's INFO line says so, and no class of
 *       {@code jdk.incubator.vector} loads, since {@code io.jccl} requires it static), and the JVM warns about
 *       native access naming {@code io.jccl} and {@code io.jccl.cuda} (class path: {@code ALL-UNNAMED});</li>
 *   <li>with {@code --add-modules jdk.incubator.vector} and {@code --enable-native-access=io.jccl,io.jccl.cuda}
 *       ({@code ALL-UNNAMED} on the class path): the vector kernels run and there is no warning.</li>
 * </ul>
 * What README's "JVM flags in your own program" table says. Runs on JUnit's thread; mirrors nothing in NCCL (how a
 * JVM program links the library).
 */
class ModuleConsumerTest {
    private static final String MAIN = "org.example.consumer.ConsumerMain";
    private static final String MODULE = "org.example.consumer";
    private static final String SCALAR_LINE =
            "reductions run scalar loops: jdk.incubator.vector is not in the module graph";
    private static final String VECTOR_CLASS_LOADED =
            "jdk.incubator.vector.FloatVector source: jrt:/jdk.incubator.vector";
    private static final long RUN_TIMEOUT_S = 120;

    @TempDir
    static Path dir;

    /** jccl-core and jccl-cuda as the build made them: jars under mvn verify, classes directories under mvn test. */
    private static String jcclPath;

    @BeforeAll
    static void compileTheConsumer() throws URISyntaxException, IOException {
        Path core = codeSource(Communicator.class);
        Path cuda = codeSource(CudaDevice.class);
        assertThat(core).as("io.jccl").isNotEqualTo(cuda);
        jcclPath = core + File.pathSeparator + cuda;
        Path sources = Path.of(ModuleConsumerTest.class.getResource("/module-consumer/module-info.java").toURI())
                .getParent();
        Path main = sources.resolve(MAIN.replace('.', '/') + ".java");
        // the module: a warning-free compile but for the one that every module reading io.jccl gets (it requires
        // the incubating jdk.incubator.vector, statically), which README says how to silence
        compile(List.of("--module-path", jcclPath, "-Xlint:all,-incubating", "-Werror",
                "-d", dir.resolve("module").toString()), List.of(sources.resolve("module-info.java"), main));
        compile(List.of("-cp", jcclPath, "-Xlint:all", "-Werror", "-d", dir.resolve("classes").toString()),
                List.of(main));
    }

    @ParameterizedTest(name = "{0} path, {1}")
    @CsvSource({"module, no flags", "module, JVM flags", "class, no flags", "class, JVM flags"})
    void allReducesWithAndWithoutTheFlags(String path, String flags) throws IOException, InterruptedException {
        boolean modulePath = path.equals("module");
        boolean withFlags = flags.equals("JVM flags");
        String label = path + " path, " + flags;
        Path log = dir.resolve("class-load-" + path + "-" + withFlags + ".log");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xlog:class+load=info:file=" + log));
        if (withFlags) {
            cmd.addAll(List.of("--add-modules", "jdk.incubator.vector",
                    "--enable-native-access=" + (modulePath ? "io.jccl,io.jccl.cuda" : "ALL-UNNAMED")));
        }
        if (modulePath) {
            cmd.addAll(List.of("--module-path", dir.resolve("module") + File.pathSeparator + jcclPath,
                    "-m", MODULE + "/" + MAIN));
        } else {
            cmd.addAll(List.of("-cp", dir.resolve("classes") + File.pathSeparator + jcclPath, MAIN));
        }
        Run run = run(cmd, label);
        String loaded = Files.readString(log);

        assertThat(run.exitCode).as("%s exit code%n%s", label, run).isZero();
        assertThat(run.stdout.lines()).as("%s%n%s", label, run)
                .contains("allReduce of 4099 floats on 2 ranks: correct")
                .contains("jccl module: " + (modulePath ? "io.jccl" : "unnamed"))
                .contains("cuda module: " + (modulePath ? "io.jccl.cuda" : "unnamed"))
                .contains("consumer module: " + (modulePath ? MODULE : "unnamed"));
        if (withFlags) {
            assertThat(run.stderr).as("%s: no native-access warning%n%s", label, run)
                    .doesNotContain("restricted method");
            assertThat(run.all()).as("%s: vector reductions%n%s", label, run).doesNotContain(SCALAR_LINE);
            assertThat(loaded).as("%s: the Vector API loaded", label).contains(VECTOR_CLASS_LOADED);
        } else {
            List<String> modules = modulePath ? List.of("io.jccl", "io.jccl.cuda") : List.of("ALL-UNNAMED");
            for (String m : modules) {
                assertThat(run.stderr).as("%s: the JVM's native-access warning for %s%n%s", label, m, run)
                        .contains("WARNING: Use --enable-native-access=" + m + " to avoid a warning");
            }
            assertThat(run.all()).as("%s: scalar reductions, said once%n%s", label, run).contains(SCALAR_LINE);
            assertThat(loaded).as("%s: no class of the Vector API", label).doesNotContain("jdk.incubator.vector.");
        }
    }

    private static Path codeSource(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static void compile(List<String> options, List<Path> files) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac).as("the JDK's compiler (tests need a JDK, not a JRE)").isNotNull();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fileManager = javac.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            boolean ok = javac.getTask(null, fileManager, diagnostics, options, null,
                    fileManager.getJavaFileObjectsFromPaths(files)).call();
            assertThat(ok).as("javac %s %s:%n%s", options, files, diagnostics.getDiagnostics()).isTrue();
        }
    }

    /** Runs {@code cmd} with NCCL_DEBUG=INFO, its output in files (no pipe to fill), at most RUN_TIMEOUT_S s. */
    private static Run run(List<String> cmd, String label) throws IOException, InterruptedException {
        Path out = Files.createTempFile(dir, "stdout", ".txt");
        Path err = Files.createTempFile(dir, "stderr", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("NCCL_DEBUG", "INFO");
        pb.environment().put("NCCL_DEBUG_SUBSYS", "INIT");
        pb.environment().remove("NCCL_DEBUG_FILE");
        Process p = pb.start();
        if (!p.waitFor(RUN_TIMEOUT_S, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(label + ": the consumer did not finish within " + RUN_TIMEOUT_S + " s: " + cmd
                    + "\nstdout:\n" + Files.readString(out) + "\nstderr:\n" + Files.readString(err));
        }
        return new Run(String.join(" ", cmd), p.exitValue(), Files.readString(out), Files.readString(err));
    }

    /** One finished run of the consumer. */
    private record Run(String command, int exitCode, String stdout, String stderr) {
        String all() {
            return stdout + stderr;
        }

        @Override
        public String toString() {
            return "command: " + command + "\nstdout:\n" + stdout + "stderr:\n" + stderr;
        }
    }
}
