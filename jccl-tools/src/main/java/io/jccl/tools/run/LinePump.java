package io.jccl.tools.run;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies one child stream to the launcher's stdout or stderr line by line, each line prefixed with the rank's label
 * ({@code "[2] "}, or nothing). Runs on its own daemon thread per stream; a whole line is written with one
 * {@code println} so lines of different ranks never mix mid-line. The JVM's start-up notice about incubator
 * modules, which every rank would repeat, is dropped. The role of mpirun's {@code --tag-output}.
 */
final class LinePump implements Runnable {
    /** The line every JVM started with {@code --add-modules jdk.incubator.vector} prints first on stderr. */
    static final String INCUBATOR_NOTICE = "WARNING: Using incubator modules: jdk.incubator.vector";

    private final InputStream in;
    private final String prefix;
    private final PrintStream sink;

    LinePump(InputStream in, String prefix, PrintStream sink) {
        this.in = in;
        this.prefix = prefix;
        this.sink = sink;
    }

    /** Starts a daemon thread running this pump. */
    Thread start(String name) {
        return Thread.ofPlatform().name(name).daemon().start(this);
    }

    @Override
    public void run() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.equals(INCUBATOR_NOTICE)) {
                    continue;
                }
                sink.println(prefix.isEmpty() ? line : prefix + line);
            }
        } catch (IOException e) {
            // The child went away while we were reading (killed); what it wrote before is already copied.
        } finally {
            sink.flush();
        }
    }
}
