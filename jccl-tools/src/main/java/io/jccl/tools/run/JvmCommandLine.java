package io.jccl.tools.run;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The command line that starts one rank: a java binary, JVM flags, a classpath, a main class and its arguments.
 * {@link #current()} copies this JVM's (same binary, same flags, same classpath) so children run exactly like the
 * launcher, less flags that cannot be shared between processes (a debugger agent listening on a fixed port).
 * A value computed once by the launcher thread; plays the role of mpirun's "same executable on every rank".
 *
 * @param javaBinary path of the {@code java} executable
 * @param jvmFlags   flags placed before {@code -cp}
 * @param classpath  the children's classpath (platform path separator)
 */
public record JvmCommandLine(String javaBinary, List<String> jvmFlags, String classpath) {

    public JvmCommandLine {
        Objects.requireNonNull(javaBinary, "javaBinary");
        jvmFlags = List.copyOf(jvmFlags);
        Objects.requireNonNull(classpath, "classpath");
    }

    /** This JVM's binary, flags and classpath. */
    public static JvmCommandLine current() {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> flags = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(JvmCommandLine::shareable)
                .toList());
        // JCCL's own settings (jccl.* properties, and JCCL_* / NCCL_* parameters given as properties) reach the
        // children even when they were set in this JVM, not on its command line (a test runner's properties, say: the
        // CPU emulator is found through jccl.cuda.library)
        for (String k : System.getProperties().stringPropertyNames().stream().sorted().toList()) {
            boolean ours = k.startsWith("jccl.") || k.startsWith("JCCL_") || k.startsWith("NCCL_");
            if (ours && flags.stream().noneMatch(f -> f.startsWith("-D" + k + "="))) {
                flags.add("-D" + k + "=" + System.getProperty(k));
            }
        }
        return new JvmCommandLine(java, List.copyOf(flags), System.getProperty("java.class.path", ""));
    }

    /** False for flags that must not be repeated in every child (a JDWP agent would fight over its port). */
    static boolean shareable(String flag) {
        return !(flag.startsWith("-agentlib:jdwp") || flag.startsWith("-Xrunjdwp") || flag.startsWith("-Xdebug")
                || flag.startsWith("-Djava.class.path="));
    }

    /** The same command line with {@code entries} appended to the classpath. */
    public JvmCommandLine withExtraClasspath(List<String> entries) {
        if (entries.isEmpty()) {
            return this;
        }
        List<String> parts = new ArrayList<>();
        if (!classpath.isEmpty()) {
            parts.add(classpath);
        }
        parts.addAll(entries);
        return new JvmCommandLine(javaBinary, jvmFlags, String.join(File.pathSeparator, parts));
    }

    /** The full argv: {@code java <flags> -cp <classpath> <mainClass> <args...>}. */
    public List<String> command(String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary);
        cmd.addAll(jvmFlags);
        if (!classpath.isEmpty()) {
            cmd.add("-cp");
            cmd.add(classpath);
        }
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }
}
