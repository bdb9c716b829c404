package io.jccl.cuda.internal.driver;

import io.jccl.internal.param.InternalProperties;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.jccl.cuda.internal.driver.DriverCall.Arg.DPTR;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.LONG;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.fixed;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.label;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Stream-ordered copies the driver is asked to keep off the multiprocessors: {@code cuMemcpyBatchAsync} (CUDA 13
 * drivers export it as {@code _v2}) with one attribute, source access in stream order and
 * {@code CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE}. A plain {@code cuMemcpyAsync} between two buffers of one GPU
 * may run as a copy kernel on the SMs, which a compute kernel beside it then shares; with the flag the driver takes
 * the copy engines. Falls back to {@code cuMemcpyAsync} where the driver lacks the call, while the stream captures
 * (batches cannot be captured), on the legacy streams, for 0 bytes, and with
 * {@code -Djccl.cuda.copyEngineBatch=false}.
 *
 * <p>Thread: any platform thread; each passes its copy's pointer, source and size through 24 bytes of native memory
 * of its own, which the driver reads during the call, so a copy allocates nothing once a thread made its first. Mirrors
 * NCCL's ncclCeLaunchBatchOps (copy-engine collectives, RMA puts).
 */
public final class CuBatchCopies {
    private static final String SYMBOL = "cuMemcpyBatchAsync_v2";
    private static final int ORDER_STREAM = 1;
    private static final int FLAG_PREFER_OVERLAP_WITH_COMPUTE = 1;
    /** The highest legacy stream handle (CU_STREAM_PER_THREAD), which batches do not take. */
    private static final long LEGACY_STREAMS = 2;

    private CuBatchCopies() {
    }

    private static final class H {
        /** CUmemcpyAttributes: srcAccessOrder, srcLocHint {type, id}, dstLocHint {type, id}, flags; 24 bytes. */
        static final MemorySegment ATTRIBUTES = attributes();
        static final MemorySegment FIRST_COPY = Arena.global().allocate(JAVA_LONG);
        static final boolean ON = InternalProperties.CUDA_COPY_ENGINE_BATCH.get()
                && CudaLibrary.library().has(SYMBOL);
        static final DriverCall BATCH = DriverCall.hot(SYMBOL, label("&dst"), label("&src"), label("&bytes"), LONG,
                fixed(ATTRIBUTES, "&{stream order, prefer overlap with compute}"), fixed(FIRST_COPY, "&{0}"),
                fixed(1L), DPTR);
        static final ThreadLocal<MemorySegment[]> ARRAYS = ThreadLocal.withInitial(() -> {
            MemorySegment m = Arena.ofAuto().allocate(3 * Long.BYTES, Long.BYTES);
            return new MemorySegment[] {m.asSlice(0, 8), m.asSlice(8, 8), m.asSlice(16, 8)};
        });
    }

    private static MemorySegment attributes() {
        MemorySegment m = Arena.global().allocate(24, 8);
        m.set(JAVA_INT, 0, ORDER_STREAM);
        m.set(JAVA_INT, 20, FLAG_PREFER_OVERLAP_WITH_COMPUTE);
        return m;
    }

    /** Whether copies go as batches preferring the copy engines (the driver has the call, not turned off). */
    public static boolean available() {
        return H.ON;
    }

    /**
     * Queues on {@code stream} the copy of {@code bytes} from {@code src} to {@code dst} (any two unified
     * addresses), preferring the copy engines; {@code capturing}: whether the stream records a graph. Returns whether
     * it went as a batch (false: cuMemcpyAsync).
     */
    public static boolean copy(long dst, long src, long bytes, MemorySegment stream, boolean capturing) {
        if (!H.ON || capturing || bytes == 0 || stream.address() <= LEGACY_STREAMS) {
            CuMemory.copyAsync(dst, src, bytes, stream);
            return false;
        }
        MemorySegment[] a = H.ARRAYS.get();
        a[0].set(JAVA_LONG, 0, dst);
        a[1].set(JAVA_LONG, 0, src);
        a[2].set(JAVA_LONG, 0, bytes);
        H.BATCH.call(a[0], a[1], a[2], 1L, stream.address());
        return true;
    }
}
