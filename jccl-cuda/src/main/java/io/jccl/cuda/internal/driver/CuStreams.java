package io.jccl.cuda.internal.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.jccl.cuda.internal.driver.DriverCall.Arg.DPTR;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.INT;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.PTR;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.fixed;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.out;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

/**
 * Driver calls for streams and events. Record, wait-event and query allocate nothing (hot path).
 *
 * <p>Thread: stateless, any platform thread with the owning context current. Mirrors the stream/event part of
 * NCCL's cudawrap.h (NCCL itself uses the runtime's cudaStream/cudaEvent).
 */
public final class CuStreams {
    /** cuStreamCreate flag: no implicit synchronisation with the legacy NULL stream. */
    public static final int STREAM_NON_BLOCKING = 1;
    /** cuEventCreate flags. */
    public static final int EVENT_DEFAULT = 0;
    public static final int EVENT_DISABLE_TIMING = 2;

    private CuStreams() {
    }

    private static final class H {
        static final DriverCall STREAM_CREATE = DriverCall.of("cuStreamCreate", PTR, INT).unchecked();
        static final DriverCall STREAM_CREATE_PRIO = DriverCall.of("cuStreamCreateWithPriority", PTR, INT, INT)
                .unchecked();
        static final DriverCall STREAM_DESTROY = DriverCall.of("cuStreamDestroy_v2", PTR);
        static final DriverCall STREAM_SYNC = DriverCall.of("cuStreamSynchronize", PTR);
        static final DriverCall STREAM_QUERY = DriverCall.hot("cuStreamQuery", PTR).accepting(CuCheck.NOT_READY);
        static final DriverCall STREAM_GET_CTX = DriverCall.of("cuStreamGetCtx", PTR, out("&ctx", ADDRESS));
        static final DriverCall STREAM_WAIT_EVENT = DriverCall.hot("cuStreamWaitEvent", PTR, PTR, fixed(0));
        static final DriverCall WAIT_VALUE32 = DriverCall.hot("cuStreamWaitValue32_v2", PTR, DPTR, INT, fixed(0));
        static final DriverCall WRITE_VALUE32 = DriverCall.hot("cuStreamWriteValue32_v2", PTR, DPTR, INT, fixed(0));
        static final DriverCall EVENT_CREATE = DriverCall.of("cuEventCreate", out("&event", ADDRESS), INT);
        static final DriverCall EVENT_DESTROY = DriverCall.of("cuEventDestroy_v2", PTR);
        static final DriverCall EVENT_RECORD = DriverCall.hot("cuEventRecord", PTR, PTR);
        static final DriverCall EVENT_SYNC = DriverCall.of("cuEventSynchronize", PTR);
        static final DriverCall EVENT_QUERY = DriverCall.hot("cuEventQuery", PTR).accepting(CuCheck.NOT_READY);
        static final DriverCall EVENT_ELAPSED = DriverCall.of("cuEventElapsedTime_v2", out("&ms", JAVA_FLOAT), PTR,
                PTR);
    }

    /**
     * Makes {@code stream} wait until the 32-bit word at {@code address} (device memory) is at least {@code value},
     * compared as NCCL's and the driver's wrap-safe counters are ({@code (int32_t)(*addr - value) >= 0}): a stream
     * memory operation, carried out by the GPU's front end, which occupies no multiprocessor
     * (cuStreamWaitValue32 with CU_STREAM_WAIT_VALUE_GEQ). It has no limit of its own: its caller keeps one.
     */
    public static void waitValue32(MemorySegment stream, long address, int value) {
        H.WAIT_VALUE32.call(stream, address, value);
    }

    /**
     * Writes {@code value} into the 32-bit word at {@code address} (this GPU's or a peer's mapped memory) once the work
     * before it in {@code stream} is done and its writes are visible (cuStreamWriteValue32 with the default memory
     * barrier); no multiprocessor takes part.
     */
    public static void writeValue32(MemorySegment stream, long address, int value) {
        H.WRITE_VALUE32.call(stream, address, value);
    }

    /** Creates a stream in the current context. */
    public static MemorySegment createStream(int flags, int priority) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            DriverCall create = priority == 0 ? H.STREAM_CREATE : H.STREAM_CREATE_PRIO;
            long rc = priority == 0 ? create.call(p, flags) : create.call(p, flags, priority);
            if (rc != 0) {
                throw create.error((int) rc, "&stream", flags, priority);
            }
            return p.get(ADDRESS, 0);
        }
    }

    public static void destroyStream(MemorySegment stream) {
        H.STREAM_DESTROY.call(stream);
    }

    /** Blocks until all work queued on the stream has finished. */
    public static void synchronizeStream(MemorySegment stream) {
        H.STREAM_SYNC.call(stream);
    }

    /** True when all work queued on the stream has finished; false while some is still running. */
    public static boolean queryStream(MemorySegment stream) {
        return H.STREAM_QUERY.call(stream) == 0;
    }

    /**
     * The context {@code stream} belongs to (cuStreamGetCtx); for the legacy and per-thread default streams, the
     * calling thread's current context.
     */
    public static MemorySegment streamContext(MemorySegment stream) {
        return MemorySegment.ofAddress(H.STREAM_GET_CTX.call(stream));
    }

    /** Makes future work on {@code stream} wait for {@code event}. */
    public static void streamWaitEvent(MemorySegment stream, MemorySegment event) {
        H.STREAM_WAIT_EVENT.call(stream, event);
    }

    /** Creates an event in the current context ({@code flags}: EVENT_*). */
    public static MemorySegment createEvent(int flags) {
        return MemorySegment.ofAddress(H.EVENT_CREATE.call(flags));
    }

    public static void destroyEvent(MemorySegment event) {
        H.EVENT_DESTROY.call(event);
    }

    /** Records {@code event} on {@code stream}. */
    public static void recordEvent(MemorySegment event, MemorySegment stream) {
        H.EVENT_RECORD.call(event, stream);
    }

    public static void synchronizeEvent(MemorySegment event) {
        H.EVENT_SYNC.call(event);
    }

    /** True when the work before the event's last record has finished. */
    public static boolean queryEvent(MemorySegment event) {
        return H.EVENT_QUERY.call(event) == 0;
    }

    /** Milliseconds between two completed events created with timing enabled (about 0.5 µs resolution). */
    public static float elapsedMs(MemorySegment start, MemorySegment end) {
        return Float.intBitsToFloat((int) H.EVENT_ELAPSED.call(start, end));
    }
}
