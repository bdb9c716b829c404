package io.jccl.internal.debug;

import java.util.ArrayList;
import java.util.List;

/**
 * Test helper: collects log records at the given level and subsystems instead of printing them; closing restores
 * the configured logging ({@link Log#reconfigure()}).
 */
public final class LogCapture implements LogSink, AutoCloseable {
    /** One record. */
    public record Line(Log.Level level, Subsys subsys, int rank, String message) {
    }

    private final List<Line> lines = new ArrayList<>();

    private LogCapture() {
    }

    /** Captures records at {@code level} for {@code subsys} (NCCL_DEBUG_SUBSYS syntax). */
    public static LogCapture start(Log.Level level, String subsys) {
        LogCapture c = new LogCapture();
        Log.set(level, subsys);
        Log.useSink(c);
        return c;
    }

    @Override
    public synchronized void emit(Log.Level level, Subsys subsys, int rank, String message) {
        lines.add(new Line(level, subsys, rank, message));
    }

    public synchronized List<Line> lines() {
        return List.copyOf(lines);
    }

    /** The messages of every record, in order. */
    public synchronized List<String> messages() {
        return lines.stream().map(Line::message).toList();
    }

    @Override
    public void close() {
        Log.reconfigure();
    }
}
