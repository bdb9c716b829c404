package io.jccl.cuda.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaEvent;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.internal.driver.CuStreams;

import java.lang.foreign.MemorySegment;

/**
 * The waits of a window's copy-engine collectives and eager one-sided waitSignals as stream memory operations
 * ({@code cuStreamWaitValue32}: the GPU's front end waits for a peer's signal word, so the call occupies no
 * multiprocessor at all), with the limit and the stop every GPU wait of the communicator has, kept from the host. Each
 * step's waits take a slot of a ring: an event recorded before them (the stream reached them) and one after (they
 * passed). A poll, by {@link GpuWatch} every 200 ms and by the issuing thread when the ring is full, frees the passed
 * slots; a slot reached longer than the limit ago stops the communicator naming the peers and the call; and once the
 * communicator is stopped, for whatever reason, every pending wait is released by writing the value it waits for into
 * its word, so that the stream drains as the kernels' waits do (the results are then undefined, as after any stop).
 *
 * <p>Thread: the issuing thread {@link #await}s, {@code jccl-gpu-watch} polls; both under this object's lock, which
 * a poll holds for a few event queries. Allocates nothing per wait. NCCL's copy-engine collectives (2.28) wait with
 * the same stream memory operations; the host-kept limit is ours (NCCL's have none).
 */
public final class StreamWaits implements AutoCloseable {
    /** Steps whose waits may be pending at once (a copy-engine collective takes two, a waitSignal one). */
    static final int SLOTS = 256;
    /** Waits per step: one per peer. */
    private static final int MAX_WAITS = 8;
    private static final long FULL_POLL_NS = 50_000;

    private final CudaDevice device;
    private final GpuStops stops;
    private final String name;
    private final long timeoutNs;
    private final CudaEvent[] reached = new CudaEvent[SLOTS];
    private final CudaEvent[] passed = new CudaEvent[SLOTS];
    private final long[] words = new long[SLOTS * MAX_WAITS];
    private final int[] values = new int[SLOTS * MAX_WAITS];
    private final int[] peers = new int[SLOTS * MAX_WAITS];
    private final int[] waits = new int[SLOTS];
    private final String[] what = new String[SLOTS];
    private final long[] reachedNs = new long[SLOTS];
    private final CudaStream release;
    /** Pending slots are [head, tail) (mod SLOTS); those below {@code released} had their words written. */
    private long head;
    private long tail;
    private long released;
    private boolean closed;

    /** Waits on {@code device} under the limit and stop of {@code stops}; {@code name} begins the messages. */
    public StreamWaits(CudaDevice device, GpuStops stops, String name) {
        this.device = device;
        this.stops = stops;
        this.name = name;
        this.timeoutNs = stops.timeoutMs() * 1_000_000L;
        for (int i = 0; i < SLOTS; i++) {
            reached[i] = CudaEvent.create(device, false);
            passed[i] = CudaEvent.create(device, false);
        }
        this.release = CudaStream.create(device);
        GpuWatch.watch(this);
    }

    /**
     * Queues on {@code stream} the waits until word {@code words[i]} reaches {@code values[i]}, the signal of
     * {@code peers[i]}, for {@code n} peers; {@code what} names the call in a timeout's message. When
     * {@link #SLOTS} steps are pending, waits (polling, under the limit) until the oldest passed.
     *
     * @throws JcclException the communicator's stop, when it stopped while the ring was full
     */
    public synchronized void await(int n, int[] peers, long[] words, int[] values, CudaStream stream, String what) {
        if (n < 1 || n > MAX_WAITS) {
            throw new IllegalArgumentException("1 to " + MAX_WAITS + " waits, got " + n);
        }
        while (tail - head == SLOTS) {
            poll(System.nanoTime());
            JcclException stop = stops.current();
            if (stop != null && tail - head == SLOTS) {
                throw stop;
            }
            if (tail - head == SLOTS) {
                try {
                    wait(0, (int) FULL_POLL_NS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new JcclException(Result.SYSTEM_ERROR, name + ": interrupted waiting for a free slot of"
                            + " the copy-engine waits", e);
                }
            }
        }
        int slot = (int) (tail % SLOTS);
        for (int i = 0; i < n; i++) {
            this.peers[slot * MAX_WAITS + i] = peers[i];
            this.words[slot * MAX_WAITS + i] = words[i];
            this.values[slot * MAX_WAITS + i] = values[i];
        }
        waits[slot] = n;
        this.what[slot] = what;
        reachedNs[slot] = 0;
        device.makeCurrent();
        reached[slot].record(stream);
        MemorySegment s = stream.handle();
        for (int i = 0; i < n; i++) {
            CuStreams.waitValue32(s, words[i], values[i]);
        }
        passed[slot].record(stream);
        tail++;
    }

    /**
     * Frees the passed slots; stops the communicator when a reached wait is older than the limit; releases every
     * pending wait once it is stopped. {@code nowNs}: System.nanoTime().
     */
    synchronized void poll(long nowNs) {
        if (closed) {
            return;
        }
        while (head < tail && passed[(int) (head % SLOTS)].isDone()) {
            head++;
        }
        released = Math.max(released, head);
        if (head == tail) {
            return;
        }
        if (!stops.stopped()) {
            for (long k = head; k < tail; k++) {
                int slot = (int) (k % SLOTS);
                if (reachedNs[slot] == 0) {
                    if (!reached[slot].isDone()) {
                        break;   // the stream has not got there (nor to anything after it)
                    }
                    reachedNs[slot] = nowNs;
                } else if (timeoutNs > 0 && nowNs - reachedNs[slot] > timeoutNs) {
                    stops.hostWaitTimedOut(timedOut(slot, nowNs - reachedNs[slot]));
                    break;
                }
            }
        }
        if (stops.stopped()) {
            releaseAll();
        }
    }

    /** Writes into every word a pending wait watches the value it waits for. */
    private void releaseAll() {
        device.makeCurrent();
        for (; released < tail; released++) {
            int slot = (int) (released % SLOTS);
            for (int i = 0; i < waits[slot]; i++) {
                CuStreams.writeValue32(release.handle(), words[slot * MAX_WAITS + i], values[slot * MAX_WAITS + i]);
            }
        }
    }

    private JcclException timedOut(int slot, long waitedNs) {
        StringBuilder who = new StringBuilder();
        for (int i = 0; i < waits[slot]; i++) {
            who.append(i == 0 ? "" : ", ").append(peers[slot * MAX_WAITS + i]);
        }
        return new JcclException(Result.TIMEOUT, String.format("%s: this rank's %s waited %.2f s on the GPU (a"
                + " stream memory wait) for the signal of rank(s) %s (limit %d ms: Config.timeout or"
                + " JCCL_TIMEOUT_MS); that rank did not make the matching call, made a different one, or is stuck."
                + " Every kernel of the communicator has stopped and results since are undefined: close it and create"
                + " a new one", name, what[slot],
                waitedNs / 1e9, who, timeoutNs / 1_000_000));
    }

    /**
     * Stops polling, releases what still waits (the window is going: nothing is left to wait for) and frees the events
     * and the release stream.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        poll(System.nanoTime());
        closed = true;
        GpuWatch.unwatch(this);
        releaseAll();
        release.synchronize();
        release.close();
        for (int i = 0; i < SLOTS; i++) {
            reached[i].close();
            passed[i].close();
        }
    }
}
