package io.jccl.internal.debug;

/**
 * Where log lines go once {@link Log} decided they pass {@code NCCL_DEBUG} and {@code NCCL_DEBUG_SUBSYS}: NCCL's line
 * format on stderr or a file ({@link LineSink}), or {@code java.lang.System.Logger} ({@link SystemLoggerSink}).
 *
 * <p>Implementations are called from any thread and must be thread-safe.
 */
public interface LogSink {
    /**
     * Writes one record.
     *
     * @param level   the record's level (never NONE)
     * @param subsys  the subsystem, or null for warnings and the version line, which have none
     * @param rank    the rank the record is about, or -1
     * @param message the formatted message
     */
    void emit(Log.Level level, Subsys subsys, int rank, String message);
}
