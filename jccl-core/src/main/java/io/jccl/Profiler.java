package io.jccl;

/**
 * A profiler plugin (NCCL's profiler plugin, as a Java service): JCCL calls {@link #start} when a collective or
 * point-to-point call begins and {@link #stop} when it has completed, and {@link #initPhase} after each phase of
 * communicator creation. Implementations are found with {@link java.util.ServiceLoader} (a
 * {@code META-INF/services/io.jccl.Profiler} file, or {@code provides io.jccl.Profiler with ...} in a module) when
 * the first communicator is created; {@code JCCL_PROFILER} selects among them (class names, or {@code none}).
 *
 * <p>{@link #start} runs on the thread that made the call, before the work is launched; {@link #stop} runs on that
 * thread for synchronous calls and on a JCCL worker thread for asynchronous ones, so implementations must be
 * thread-safe and fast. Calls inside a {@link Group} start when recorded and stop when the group's work completes.
 * A profiler that throws is reported once and not called again. Without profilers (and without a JFR recording)
 * the calls cost nothing.
 *
 * <pre>{@code
 * public final class NvtxLikeProfiler implements Profiler {
 *     public Object start(Operation op) { return System.nanoTime(); }
 *     public void stop(Object token, Operation op, long durationNs, Throwable error) {
 *         System.out.printf("%s #%d %d bytes %s: %d us%n", op.collective(), op.seq(), op.bytes(), op.algorithm(),
 *                 durationNs / 1000);
 *     }
 * }
 * }</pre>
 */
public interface Profiler {
    /**
     * One call as a profiler sees it.
     *
     * @param commId     the communicator's id (the same on every rank)
     * @param rank       this rank
     * @param nRanks     the communicator's size
     * @param seq        the call's sequence number on this communicator (it appears in error messages too)
     * @param collective what was called
     * @param count      elements, as passed to the call
     * @param type       element type
     * @param root       the root rank of rooted collectives, else -1
     * @param peer       the peer of send and recv, else -1
     * @param algorithm  the algorithm JCCL runs it with: {@code RING}, {@code ONE_SHOT}, {@code REGISTERED},
     *                   {@code P2P}, or {@code NONE} for an empty call
     * @param protocol   the protocol ({@code SIMPLE} on the host)
     * @param nChannels  channels the work is spread over
     * @param bytes      {@code count} times the element size
     */
    record Operation(String commId, int rank, int nRanks, long seq, Collective collective, long count, DataType type,
                     int root, int peer, String algorithm, String protocol, int nChannels, long bytes) {
    }

    /**
     * One phase of communicator creation.
     *
     * @param commId     the communicator's id
     * @param rank       this rank
     * @param nRanks     the communicator's size
     * @param phase      {@code BOOTSTRAP}, {@code PEER_INFO}, {@code TRANSPORTS}, {@code CONNECT},
     *                   {@code SHARED_MEMORY} or {@code RUNTIME}
     * @param durationNs how long the phase took
     */
    record InitPhase(String commId, int rank, int nRanks, String phase, long durationNs) {
    }

    /**
     * A call begins.
     *
     * @param op the call
     * @return any object, handed back to {@link #stop} (may be null)
     */
    Object start(Operation op);

    /**
     * The call completed.
     *
     * @param token      what {@link #start} returned
     * @param op         the call
     * @param durationNs nanoseconds from start to completion as this rank saw them
     * @param error      null on success, else the failure
     */
    void stop(Object token, Operation op, long durationNs, Throwable error);

    /**
     * A phase of communicator creation ended (called on the initialising thread).
     *
     * @param phase the phase
     */
    default void initPhase(InitPhase phase) {
    }
}
