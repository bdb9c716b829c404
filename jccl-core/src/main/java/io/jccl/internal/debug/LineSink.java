package io.jccl.internal.debug;

import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;

/**
 * NCCL's log line format, {@code host:pid:tid [rank] JCCL LEVEL message}, on stderr or in the file named by
 * {@code NCCL_DEBUG_FILE} ({@code %h} → host name, {@code %p} → process id), opened (appending) at the first line.
 * A file that cannot be opened sends the lines to stderr, with one warning saying so.
 *
 * <p>Owned by: any thread (lines are written whole under the stream's lock). Mirrors: NCCL's ncclDebugLog output.
 */
final class LineSink implements LogSink {
    static final String HOST = hostName();
    static final long PID = ProcessHandle.current().pid();

    private final String filePattern;
    private volatile PrintStream out;

    private LineSink(PrintStream out, String filePattern) {
        this.out = out;
        this.filePattern = filePattern;
    }

    /** Lines on {@code out} (usually {@link System#err}). */
    public static LineSink to(PrintStream out) {
        return new LineSink(out, null);
    }

    /** Lines appended to the file {@code pattern} names once its {@code %h} and {@code %p} are replaced. */
    public static LineSink toFile(String pattern) {
        return new LineSink(null, pattern);
    }

    /** {@code pattern} with %h and %p replaced. */
    public static String expand(String pattern) {
        return pattern.replace("%h", HOST).replace("%p", Long.toString(PID));
    }

    @Override
    public void emit(Log.Level level, Subsys subsys, int rank, String message) {
        String r = rank < 0 ? "" : "[" + rank + "] ";
        stream().println(HOST + ":" + PID + ":" + Thread.currentThread().threadId() + " " + r + "JCCL " + level + " "
                + message);
    }

    private PrintStream stream() {
        PrintStream s = out;
        if (s == null) {
            synchronized (this) {
                if (out == null) {
                    String path = expand(filePattern);
                    try {
                        out = new PrintStream(new FileOutputStream(path, true), true);
                    } catch (FileNotFoundException e) {
                        System.err.println(HOST + ":" + PID + ":" + Thread.currentThread().threadId()
                                + " JCCL WARN cannot open NCCL_DEBUG_FILE " + path + " (" + e.getMessage()
                                + "); logging to stderr");
                        out = System.err;
                    }
                }
                s = out;
            }
        }
        return s;
    }

    /** Flushes and, for a file, closes it (tests; the JVM closes it at exit otherwise). */
    synchronized void close() {
        if (out != null && out != System.err && out != System.out) {
            out.close();
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "localhost";
        }
    }
}
