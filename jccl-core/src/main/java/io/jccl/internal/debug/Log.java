package io.jccl.internal.debug;

import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.util.Locale;

/**
 * NCCL-style logging: {@code NCCL_DEBUG} (VERSION, WARN, INFO, TRACE; default WARN), {@code NCCL_DEBUG_SUBSYS}
 * (comma list, {@code ^} to exclude, default INIT,BOOTSTRAP,ENV) and {@code NCCL_DEBUG_FILE} (%h host, %p pid).
 * Lines look like NCCL's: {@code host:pid:tid [rank] JCCL INFO message}.
 *
 * <p>Owned by: any thread. Mirrors: NCCL's debug.cc.
 */
public final class Log {
    /** Verbosity levels, in increasing order. */
    public enum Level { NONE, VERSION, WARN, INFO, TRACE }

    private static final Level LEVEL = parseLevel(System.getProperty("NCCL_DEBUG", System.getenv("NCCL_DEBUG")));
    private static final int MASK = parseSubsys(System.getProperty("NCCL_DEBUG_SUBSYS", System.getenv("NCCL_DEBUG_SUBSYS")));
    private static final String HOST = hostName();
    private static final long PID = ProcessHandle.current().pid();
    private static final PrintStream OUT = openOutput();

    private Log() {
    }

    public static boolean enabled(Level level, Subsys subsys) {
        return level.compareTo(LEVEL) <= 0 && (level == Level.WARN || level == Level.VERSION || (MASK & subsys.bit()) != 0);
    }

    public static void warn(int rank, String fmt, Object... args) {
        emit(Level.WARN, rank, fmt, args);
    }

    public static void info(Subsys subsys, int rank, String fmt, Object... args) {
        if (enabled(Level.INFO, subsys)) {
            emit(Level.INFO, rank, fmt, args);
        }
    }

    public static void trace(Subsys subsys, int rank, String fmt, Object... args) {
        if (enabled(Level.TRACE, subsys)) {
            emit(Level.TRACE, rank, fmt, args);
        }
    }

    private static void emit(Level level, int rank, String fmt, Object... args) {
        if (level.compareTo(LEVEL) > 0) {
            return;
        }
        String msg = args.length == 0 ? fmt : String.format(Locale.ROOT, fmt, args);
        String r = rank < 0 ? "" : "[" + rank + "] ";
        OUT.println(HOST + ":" + PID + ":" + Thread.currentThread().threadId() + " " + r + "JCCL " + level + " " + msg);
    }

    static Level parseLevel(String v) {
        if (v == null || v.isBlank()) {
            return Level.WARN;
        }
        try {
            return Level.valueOf(v.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return Level.WARN;
        }
    }

    static int parseSubsys(String v) {
        int def = Subsys.INIT.bit() | Subsys.BOOTSTRAP.bit() | Subsys.ENV.bit();
        if (v == null || v.isBlank()) {
            return def;
        }
        String s = v.trim().toUpperCase(Locale.ROOT);
        boolean invert = s.startsWith("^");
        if (invert) {
            s = s.substring(1);
        }
        int mask = 0;
        for (String part : s.split(",")) {
            String p = part.trim();
            if (p.equals("ALL")) {
                mask = ~0;
            } else {
                for (Subsys sub : Subsys.values()) {
                    if (sub.name().equals(p)) {
                        mask |= sub.bit();
                    }
                }
            }
        }
        return invert ? ~mask : mask;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "localhost";
        }
    }

    private static PrintStream openOutput() {
        String f = System.getProperty("NCCL_DEBUG_FILE", System.getenv("NCCL_DEBUG_FILE"));
        if (f == null || f.isBlank()) {
            return System.err;
        }
        String path = f.replace("%h", HOST).replace("%p", Long.toString(PID));
        try {
            return new PrintStream(new FileOutputStream(path, true), true);
        } catch (FileNotFoundException e) {
            System.err.println("JCCL WARN cannot open NCCL_DEBUG_FILE " + path + ": " + e.getMessage() + "; logging to stderr");
            return System.err;
        }
    }
}
