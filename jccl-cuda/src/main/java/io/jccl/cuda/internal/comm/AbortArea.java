package io.jccl.cuda.internal.comm;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.PinnedBuffer;
import io.jccl.cuda.internal.driver.CuMemory;
import io.jccl.cuda.internal.enqueue.KernelArgs;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A GPU communicator's host-mapped abort area ({@code struct AbortArea} in src/main/cuda/jccl_device.cuh): the state
 * every kernel's spin loops poll, the longest one wait may last, and for each rank the first of its waits that passed
 * that limit. A kernel whose wait passes the limit writes its record and raises the state, which ends every wait of
 * the communicator (as {@link #raise()} does); the host then reports the record as a {@link Result#TIMEOUT} naming
 * the rank, the peer, the collective and what was awaited. One area per communicator, which every rank's kernels read:
 * pinned host memory shared by the GPUs of an {@code initAll} clique, or a page of a shared-memory file registered
 * with CUDA in every process of a one-process-per-GPU communicator ({@link SharedControl}), so that a timeout or an
 * abort on one rank stops every rank's kernels.
 *
 * <p>Thread: written at creation and by {@link #raise()} from any thread, read by any thread; the kernels write the
 * records and the state. Mirrors NCCL's host-mapped abort flag; the deadline has no NCCL counterpart (NCCL's kernels
 * wait until aborted, and its users poll {@code ncclCommGetAsyncError} with a timer of their own).
 */
final class AbortArea implements AutoCloseable {
    /** Size of the area: a 16-byte header and one 32-byte record per rank. */
    public static final int BYTES = 16 + 32 * KernelArgs.MAX_RANKS;
    /** state: running. */
    private static final int RUNNING = 0;
    /** state: raised by the host ({@link #raise()}). */
    private static final int BY_HOST = 1;
    /** state: a kernel's wait passed the limit. */
    private static final int TIMED_OUT = 2;

    private static final long STATE = 0;
    private static final long TIMEOUT_MS = 4;
    private static final long RECORDS = 16;
    private static final long RECORD_BYTES = 32;
    private static final long PEER = 0;
    private static final long COLL = 4;
    private static final long WHAT = 8;
    private static final long BLOCK = 12;
    private static final long WAITED_NS = 16;
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    /** What a kernel was waiting for (kWait* in jccl_device.cuh), by code. */
    private static final String[] WAITS = {
        "?",
        "its block to reach the same barrier",
        "it to finish the previous LL call",
        "its LL data",
        "its next FIFO step",
        "a free slot in its FIFO",
        "its next push chunk",
        "its putSignal into a window (waitSignal)",
    };

    private final MemorySegment memory;
    private final long devicePointer;
    private final Runnable release;
    private final long timeoutMs;

    private AbortArea(MemorySegment memory, long devicePointer, Runnable release, long timeoutMs) {
        this.memory = memory;
        this.devicePointer = devicePointer;
        this.release = release;
        this.timeoutMs = timeoutMs;
    }

    /** The limit of one wait, in ms (0: none). */
    public long timeoutMs() {
        return timeoutMs;
    }

    /**
     * Allocates a zeroed area pinned and mapped for {@code device} (and, with unified addressing, every GPU of the
     * process), with {@code timeoutMs} as the limit of one wait (capped at 2^31-1 ms; 0: none).
     */
    public static AbortArea allocate(CudaDevice device, long timeoutMs) {
        requireLimit(timeoutMs);
        PinnedBuffer b = PinnedBuffer.allocate(device, BYTES);
        return new AbortArea(b.segment(), b.devicePointer(), b::close, setLimit(b.segment(), timeoutMs));
    }

    /**
     * The area at the start of {@code page} (host memory of at least {@link #BYTES} bytes, page-aligned, zeroed by
     * its creator, a shared-memory file's first page say), registered with CUDA and mapped for {@code device}; its
     * creator also sets the limit ({@code timeoutMs}), the others take the creator's. {@link #close()} unregisters it
     * (the memory itself stays its owner's).
     */
    public static AbortArea register(CudaDevice device, MemorySegment page, boolean creator, long timeoutMs) {
        requireLimit(timeoutMs);
        device.makeCurrent();
        CuMemory.hostRegister(page, CuMemory.HOST_ALLOC_PORTABLE | CuMemory.HOST_ALLOC_DEVICEMAP);
        try {
            long ms = creator ? setLimit(page, timeoutMs) : Integer.toUnsignedLong((int) INT.getVolatile(page,
                    TIMEOUT_MS));
            long pointer = CuMemory.hostDevicePointer(page);
            return new AbortArea(page, pointer, () -> {
                device.makeCurrent();
                CuMemory.hostUnregister(page);
            }, ms);
        } catch (RuntimeException e) {
            CuMemory.hostUnregister(page);
            throw e;
        }
    }

    private static void requireLimit(long timeoutMs) {
        if (timeoutMs < 0) {
            throw new IllegalArgumentException("timeoutMs must be >= 0, got " + timeoutMs);
        }
    }

    /** Writes the limit (capped at 2^31-1 ms) and returns it. */
    private static long setLimit(MemorySegment area, long timeoutMs) {
        long ms = Math.min(timeoutMs, Integer.MAX_VALUE);
        INT.setVolatile(area, TIMEOUT_MS, (int) ms);
        return ms;
    }

    /** The area's host memory (the kernels reach it through {@link #devicePointer()}). */
    public MemorySegment segment() {
        return memory;
    }

    /** The address the allocating (or registering) GPU's kernels use. */
    public long devicePointer() {
        return devicePointer;
    }

    /** Stops every running and future kernel's waits (unless a timeout already did). */
    public void raise() {
        INT.compareAndSet(memory, STATE, RUNNING, BY_HOST);
    }

    /** Whether a kernel's wait passed the limit. */
    public boolean timedOut() {
        return (int) INT.getVolatile(memory, STATE) == TIMED_OUT;
    }

    /** Whether the kernels were stopped, by {@link #raise()} or by a timeout. */
    public boolean stopped() {
        return (int) INT.getVolatile(memory, STATE) != RUNNING;
    }

    /**
     * The timeout to report to {@code rank}, or {@code null} while no wait passed the limit: its own record if its
     * kernel timed out, else the first other rank's (in a clique, a peer's timeout stops this rank's kernels too).
     *
     * @param where the communicator, to begin the message with
     */
    public JcclException timeoutError(int rank, String where) {
        if (!timedOut()) {
            return null;
        }
        int found = complete(rank) ? rank : -1;
        for (int r = 0; r < KernelArgs.MAX_RANKS && found < 0; r++) {
            found = complete(r) ? r : -1;
        }
        if (found < 0) {   // the kernel writes its record before the state: not seen in practice
            return new JcclException(Result.TIMEOUT, where + ": a GPU wait passed the limit (" + timeoutMs
                    + " ms); every kernel of the communicator has stopped: close it and create a new one");
        }
        MemorySegment s = memory;
        long base = RECORDS + found * RECORD_BYTES;
        int peer = (int) INT.getVolatile(s, base + PEER);
        int coll = (int) INT.getVolatile(s, base + COLL);
        int what = (int) INT.getVolatile(s, base + WHAT);
        int block = (int) INT.getVolatile(s, base + BLOCK);
        long waitedNs = (long) LONG.getVolatile(s, base + WAITED_NS);
        String who = found == rank ? "this rank's" : "rank " + found + "'s";
        return new JcclException(Result.TIMEOUT, String.format(
                "%s: %s %s kernel (block %d) waited %.2f s on the GPU for rank %d, for %s (limit %d ms: Config.timeout"
                        + " or JCCL_TIMEOUT_MS); that rank did not make the matching call, made a different one, or is"
                        + " stuck. Every kernel of the communicator has stopped and results since are undefined:"
                        + " close it and create a new one", where, who, collName(coll), block, waitedNs / 1e9, peer,
                what >= 0 && what < WAITS.length ? WAITS[what] : WAITS[0], timeoutMs));
    }

    private boolean complete(int rank) {
        return (long) LONG.getVolatile(memory, RECORDS + rank * RECORD_BYTES + WAITED_NS) != 0;
    }

    /** NCCL's name of a kernel's collective code ({@link Collective#ncclId()}; -1: a send/recv kernel). */
    static String collName(int coll) {
        for (Collective c : Collective.values()) {
            if (c.ncclId() == coll) {
                return c.ncclName();
            }
        }
        return coll == -1 ? "send/recv" : "collective " + coll;
    }

    @Override
    public void close() {
        release.run();
    }
}
