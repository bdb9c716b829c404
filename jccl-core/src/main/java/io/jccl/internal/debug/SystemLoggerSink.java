package io.jccl.internal.debug;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Sends log records to {@link System.Logger}s named {@code io.jccl.<subsystem>} (lower case; {@code io.jccl} for
 * warnings and the version line), so an application's logging framework (SLF4J, Log4j, java.util.logging) formats,
 * filters and stores them. Levels map as WARN → WARNING, INFO and VERSION → INFO, TRACE → TRACE. The message carries
 * the rank, {@code [rank] ...}; the framework adds time, thread and logger name.
 *
 * <p>Owned by: any thread (loggers are looked up once and cached; System.Logger implementations are thread-safe).
 */
final class SystemLoggerSink implements LogSink {
    private final System.Logger root;
    private final Map<Subsys, System.Logger> bySubsys = new EnumMap<>(Subsys.class);

    /** Loggers from {@link System#getLogger(String)}. */
    public SystemLoggerSink() {
        this(System::getLogger);
    }

    /** Loggers from {@code loggers} (by name). */
    public SystemLoggerSink(java.util.function.Function<String, System.Logger> loggers) {
        root = loggers.apply("io.jccl");
        for (Subsys s : Subsys.values()) {
            bySubsys.put(s, loggers.apply("io.jccl." + s.name().toLowerCase(Locale.ROOT)));
        }
    }

    @Override
    public void emit(Log.Level level, Subsys subsys, int rank, String message) {
        System.Logger logger = subsys == null ? root : bySubsys.get(subsys);
        System.Logger.Level l = switch (level) {
            case WARN -> System.Logger.Level.WARNING;
            case TRACE -> System.Logger.Level.TRACE;
            default -> System.Logger.Level.INFO;
        };
        if (logger.isLoggable(l)) {
            logger.log(l, rank < 0 ? message : "[" + rank + "] " + message);
        }
    }

    /**
     * True when the application installed its own {@link System.LoggerFinder} (a logging bridge such as SLF4J's or
     * Log4j's), false for the JDK's default one, which would only reformat NCCL's lines through java.util.logging.
     */
    public static boolean applicationFinderInstalled() {
        try {
            ClassLoader cl = System.LoggerFinder.getLoggerFinder().getClass().getClassLoader();
            return cl != null && cl != ClassLoader.getPlatformClassLoader();
        } catch (RuntimeException | java.util.ServiceConfigurationError e) {
            return false;
        }
    }
}
