package io.jccl.tools.perf;

import java.util.List;

/**
 * What a perf rank needs from the library under test, so the runner does not care whether ranks are threads or
 * processes, or where buffers live: buffers, the calls themselves (prepared once, launched many times without
 * allocating), group and completion control, and the few small collectives the harness uses for its own
 * bookkeeping (averaging times, summing wrong counts, gathering rank descriptions). {@link HostBackend} runs on a
 * {@link io.jccl.Communicator} with host memory; a GPU backend (device buffers + a CUDA stream) or an NCCL backend
 * implements the same interface. Owned by one rank's thread, except {@link #abort()}.
 */
public interface PerfBackend extends AutoCloseable {

    /** The statistic {@code -a} asks for across ranks. */
    enum StatMode {
        /** Rank 0's value. */
        RANK0,
        /** The mean over ranks. */
        AVG,
        MIN,
        MAX;

        /** nccl-tests' {@code -a} numbering: 0 rank 0, 1 average, 2 minimum, 3 maximum. */
        public static StatMode fromCode(int code) {
            if (code < 0 || code >= values().length) {
                throw new IllegalArgumentException("-a must be 0 (rank 0), 1 (average), 2 (min) or 3 (max), got "
                        + code);
            }
            return values()[code];
        }
    }

    /** A call ready to be issued repeatedly. */
    @FunctionalInterface
    interface PreparedCall {
        /** Issues the call (host: runs it to completion; device: enqueues it on the stream). */
        void launch();
    }

    int rank();

    int nRanks();

    /** Text for the bracket of the rank line ({@code host}, or a PCI bus id). */
    String deviceBusId();

    /** The device's name for the rank line (a CPU model, or a GPU name). */
    String deviceName();

    /** The device index for the rank line. */
    int deviceIndex();

    /** A zeroed buffer of {@code sizeBytes} in this backend's memory. */
    PerfBuffer allocate(long sizeBytes);

    /** Binds a call to this backend (slices buffers, builds ops) so {@link PreparedCall#launch} allocates nothing. */
    PreparedCall prepare(CollectiveCall call);

    /** Opens a group: the calls launched until {@link #groupEnd()} run together ({@code -m} aggregation). */
    void groupStart();

    /** Closes the group opened by {@link #groupStart()}. */
    void groupEnd();

    /** Waits until every launched call has completed (device: stream synchronize; host: nothing to wait for). */
    void synchronize();

    /** Returns when every rank has called it. */
    void barrier();

    /** Combines {@code value} across ranks with {@code mode}; every rank gets the result. */
    double reduceStat(double value, StatMode mode);

    /** The sum of {@code value} over ranks; every rank gets it. */
    long sumLong(long value);

    /** Every rank's {@code line}, in rank order (for the rank lines rank 0 prints). */
    List<String> gatherLines(String line);

    /**
     * The mean time of one call, in seconds, over {@code iters} iterations of {@code agg} calls (each iteration in
     * one group when {@code agg > 1}), synchronising after every iteration when {@code blocking}. The default times
     * with the host clock (host calls complete before they return); a device backend times on its stream.
     */
    default double timeCalls(PreparedCall call, int iters, int agg, boolean blocking) {
        long t0 = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            if (agg > 1) {
                groupStart();
                try {
                    for (int j = 0; j < agg; j++) {
                        call.launch();
                    }
                } finally {
                    groupEnd();
                }
            } else {
                call.launch();
            }
            if (blocking) {
                synchronize();
            }
        }
        synchronize();
        return (System.nanoTime() - t0) / 1e9 / ((double) iters * agg);
    }

    /**
     * The sweep ended on this rank: on the rank's thread, every rank at once, releases what must be released
     * collectively (registered windows). Nothing by default.
     */
    default void finish() {
    }

    /** Stops the communicator from any thread (a timeout); blocked calls fail. */
    void abort();

    /** Releases buffers and the communicator. */
    @Override
    void close();
}
