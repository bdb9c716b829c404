package io.jccl.cuda.internal.driver;

import io.jccl.cuda.internal.ffm.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.jccl.cuda.internal.driver.CuCheck.error;
import static io.jccl.cuda.internal.driver.CuCheck.hex;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

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
        static final MethodHandle STREAM_CREATE = CudaLibrary.bind("cuStreamCreate", ADDRESS, JAVA_INT);
        static final MethodHandle STREAM_CREATE_PRIO = CudaLibrary.bind("cuStreamCreateWithPriority", ADDRESS, JAVA_INT,
                JAVA_INT);
        static final MethodHandle STREAM_DESTROY = CudaLibrary.bind("cuStreamDestroy_v2", ADDRESS);
        static final MethodHandle STREAM_SYNC = CudaLibrary.bind("cuStreamSynchronize", ADDRESS);
        static final MethodHandle STREAM_QUERY = CudaLibrary.bindHot("cuStreamQuery", ADDRESS);
        static final MethodHandle STREAM_GET_CTX = CudaLibrary.bind("cuStreamGetCtx", ADDRESS, ADDRESS);
        static final MethodHandle STREAM_WAIT_EVENT = CudaLibrary.bindHot("cuStreamWaitEvent", ADDRESS, ADDRESS,
                JAVA_INT);
        static final MethodHandle EVENT_CREATE = CudaLibrary.bind("cuEventCreate", ADDRESS, JAVA_INT);
        static final MethodHandle EVENT_DESTROY = CudaLibrary.bind("cuEventDestroy_v2", ADDRESS);
        static final MethodHandle EVENT_RECORD = CudaLibrary.bindHot("cuEventRecord", ADDRESS, ADDRESS);
        static final MethodHandle EVENT_SYNC = CudaLibrary.bind("cuEventSynchronize", ADDRESS);
        static final MethodHandle EVENT_QUERY = CudaLibrary.bindHot("cuEventQuery", ADDRESS);
        static final MethodHandle EVENT_ELAPSED = CudaLibrary.bind("cuEventElapsedTime_v2", ADDRESS, ADDRESS, ADDRESS);
    }

    /** Creates a stream in the current context. */
    public static MemorySegment createStream(int flags, int priority) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int rc = priority == 0 ? (int) H.STREAM_CREATE.invokeExact(p, flags)
                    : (int) H.STREAM_CREATE_PRIO.invokeExact(p, flags, priority);
            if (rc != 0) {
                throw error(rc, priority == 0 ? "cuStreamCreate" : "cuStreamCreateWithPriority", "&stream", flags,
                        priority);
            }
            return p.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public static void destroyStream(MemorySegment stream) {
        check(H.STREAM_DESTROY, "cuStreamDestroy_v2", stream);
    }

    /** Blocks until all work queued on the stream has finished. */
    public static void synchronizeStream(MemorySegment stream) {
        check(H.STREAM_SYNC, "cuStreamSynchronize", stream);
    }

    /** True when all work queued on the stream has finished; false while some is still running. */
    public static boolean queryStream(MemorySegment stream) {
        return query(H.STREAM_QUERY, "cuStreamQuery", stream);
    }

    /**
     * The context {@code stream} belongs to (cuStreamGetCtx); for the legacy and per-thread default streams, the
     * calling thread's current context.
     */
    public static MemorySegment streamContext(MemorySegment stream) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int rc = (int) H.STREAM_GET_CTX.invokeExact(stream, p);
            if (rc != 0) {
                throw error(rc, "cuStreamGetCtx", hex(stream), "&ctx");
            }
            return p.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Makes future work on {@code stream} wait for {@code event}. */
    public static void streamWaitEvent(MemorySegment stream, MemorySegment event) {
        int rc;
        try {
            rc = (int) H.STREAM_WAIT_EVENT.invokeExact(stream, event, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuStreamWaitEvent", hex(stream), hex(event), 0);
        }
    }

    /** Creates an event in the current context ({@code flags}: EVENT_*). */
    public static MemorySegment createEvent(int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int rc = (int) H.EVENT_CREATE.invokeExact(p, flags);
            if (rc != 0) {
                throw error(rc, "cuEventCreate", "&event", flags);
            }
            return p.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public static void destroyEvent(MemorySegment event) {
        check(H.EVENT_DESTROY, "cuEventDestroy_v2", event);
    }

    /** Records {@code event} on {@code stream}. */
    public static void recordEvent(MemorySegment event, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.EVENT_RECORD.invokeExact(event, stream);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuEventRecord", hex(event), hex(stream));
        }
    }

    public static void synchronizeEvent(MemorySegment event) {
        check(H.EVENT_SYNC, "cuEventSynchronize", event);
    }

    /** True when the work before the event's last record has finished. */
    public static boolean queryEvent(MemorySegment event) {
        return query(H.EVENT_QUERY, "cuEventQuery", event);
    }

    /** Milliseconds between two completed events created with timing enabled (about 0.5 µs resolution). */
    public static float elapsedMs(MemorySegment start, MemorySegment end) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ms = a.allocate(JAVA_FLOAT);
            int rc = (int) H.EVENT_ELAPSED.invokeExact(ms, start, end);
            if (rc != 0) {
                throw error(rc, "cuEventElapsedTime_v2", "&ms", hex(start), hex(end));
            }
            return ms.get(JAVA_FLOAT, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    private static void check(MethodHandle h, String call, MemorySegment handle) {
        int rc;
        try {
            rc = (int) h.invokeExact(handle);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, call, hex(handle));
        }
    }

    private static boolean query(MethodHandle h, String call, MemorySegment handle) {
        int rc;
        try {
            rc = (int) h.invokeExact(handle);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc == CuCheck.NOT_READY) {
            return false;
        }
        if (rc != 0) {
            throw error(rc, call, hex(handle));
        }
        return true;
    }
}
