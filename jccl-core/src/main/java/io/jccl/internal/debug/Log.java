package io.jccl.internal.debug;

import io.jccl.internal.param.Params;

import java.util.Locale;

/**
 * NCCL-style logging: {@code NCCL_DEBUG} (VERSION, WARN, INFO, TRACE; default WARN) and {@code NCCL_DEBUG_SUBSYS}
 * (comma list, {@code ^} to exclude, default INIT,BOOTSTRAP,ENV) decide what is logged; the {@link LogSink} decides
 * where: NCCL's line format ({@code host:pid:tid [rank] JCCL INFO message}) on stderr or in {@code NCCL_DEBUG_FILE}
 * (%h host, %p pid), or {@link System.Logger} ({@code JCCL_DEBUG_SINK}, see {@link Params#DEBUG_SINK}).
 *
 * <p>Checks are two volatile reads, so guarded logging on hot paths costs nothing when off:
 * {@code if (Log.enabled(Level.INFO, Subsys.TUNING)) Log.info(...)}.
 *
 * <p>Owned by: any thread. Mirrors: NCCL's debug.cc.
 */
public final class Log {
    /** Verbosity levels, in increasing order. */
    public enum Level { NONE, VERSION, WARN, INFO, TRACE }

    private static volatile int level;
    private static volatile int mask;
    private static volatile LogSink sink;

    static {
        reconfigure();
    }

    private Log() {
    }

    /**
     * Re-reads NCCL_DEBUG, NCCL_DEBUG_SUBSYS, NCCL_DEBUG_FILE and JCCL_DEBUG_SINK (done once at class load; tools and
     * tests call it after changing them). Unusable values fall back to the defaults; the parameter check at the first
     * communicator init reports them.
     */
    public static synchronized void reconfigure() {
        level = parseLevel(Params.DEBUG_LEVEL.raw()).ordinal();
        mask = parseSubsys(Params.DEBUG_SUBSYS.raw());
        LogSink previous = sink;
        sink = chooseSink(Params.DEBUG_FILE.raw(), Params.DEBUG_SINK.raw());
        if (previous instanceof LineSink l) {
            l.close();
        }
    }

    /** Replaces the sink (tests, embedding applications); returns the previous one. */
    public static synchronized LogSink useSink(LogSink s) {
        LogSink previous = sink;
        sink = s;
        return previous;
    }

    /** Sets the level and subsystem mask directly (tests); returns nothing, {@link #reconfigure()} restores. */
    public static synchronized void set(Level l, String subsys) {
        level = l.ordinal();
        mask = parseSubsys(subsys);
    }

    /** The current level. */
    public static Level level() {
        return Level.values()[level];
    }

    public static boolean enabled(Level l, Subsys subsys) {
        int o = l.ordinal();
        return o <= level && (o <= Level.WARN.ordinal() || (mask & subsys.bit()) != 0);
    }

    /** The version line: shown at every level from VERSION up. */
    public static void version(String fmt, Object... args) {
        if (Level.VERSION.ordinal() <= level) {
            emit(Level.VERSION, null, -1, fmt, args);
        }
    }

    public static void warn(int rank, String fmt, Object... args) {
        if (Level.WARN.ordinal() <= level) {
            emit(Level.WARN, null, rank, fmt, args);
        }
    }

    public static void info(Subsys subsys, int rank, String fmt, Object... args) {
        if (enabled(Level.INFO, subsys)) {
            emit(Level.INFO, subsys, rank, fmt, args);
        }
    }

    public static void trace(Subsys subsys, int rank, String fmt, Object... args) {
        if (enabled(Level.TRACE, subsys)) {
            emit(Level.TRACE, subsys, rank, fmt, args);
        }
    }

    private static void emit(Level l, Subsys subsys, int rank, String fmt, Object... args) {
        String msg = args.length == 0 ? fmt : String.format(Locale.ROOT, fmt, args);
        sink.emit(l, subsys, rank, msg);
    }

    static LogSink chooseSink(String debugFile, String sinkName) {
        if (debugFile != null && !debugFile.isBlank()) {
            return LineSink.toFile(debugFile.trim());
        }
        String s = sinkName == null ? "AUTO" : sinkName.trim().toUpperCase(Locale.ROOT);
        boolean system = s.equals("SYSTEM") || (!s.equals("STDERR") && SystemLoggerSink.applicationFinderInstalled());
        return system ? new SystemLoggerSink() : LineSink.to(System.err);
    }

    /** NCCL_DEBUG's value; unset or unknown values mean WARN. */
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

    /** NCCL_DEBUG_SUBSYS's value as a bit mask; unset means INIT,BOOTSTRAP,ENV. */
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
        int m = 0;
        for (String part : s.split(",")) {
            String p = part.trim();
            if (p.equals("ALL")) {
                m = ~0;
            } else {
                for (Subsys sub : Subsys.values()) {
                    if (sub.name().equals(p)) {
                        m |= sub.bit();
                    }
                }
            }
        }
        return invert ? ~m : m;
    }
}
