package io.jccl.cuda.internal.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.jccl.cuda.internal.driver.DriverCall.Arg.BYTE;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.DPTR;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.INT;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.LONG;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.PTR;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.fixed;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.label;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.out;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Driver calls for device and pinned host memory, copies, memsets and pointer attributes. Device pointers are
 * {@code long}s (CUdeviceptr); host memory is a {@link MemorySegment} that must be native. The calling thread
 * must have a context current (device memory calls act in it; with unified addressing copies work from any).
 * The asynchronous calls allocate nothing. Beware the "synchronous" forms: cuMemcpyHtoD from pageable memory and
 * cuMemsetD8 may return before device memory is written, and they run on the legacy stream, which non-blocking
 * streams do not wait for; JCCL's public API therefore queues its blocking copies on a stream and synchronises it.
 *
 * <p>Thread: stateless, any platform thread. Mirrors the memory part of NCCL's cudawrap.h / alloc.h.
 */
public final class CuMemory {
    /** cuMemHostAlloc flags: pinned for every context, and mapped into the device address space. */
    public static final int HOST_ALLOC_PORTABLE = 1;
    public static final int HOST_ALLOC_DEVICEMAP = 2;
    /** CUpointer_attribute values. */
    public static final int POINTER_MEMORY_TYPE = 2;
    public static final int POINTER_DEVICE_ORDINAL = 9;
    /** The address the CPU reaches the memory at (pinned host memory; none for cuMemAlloc memory on a GPU). */
    public static final int POINTER_HOST_POINTER = 4;
    /**
     * True for the driver's legacy allocations (cuMemAlloc), which peer access reaches; false for pools, cuMemCreate.
     */
    public static final int POINTER_IS_LEGACY_CUDA_IPC_CAPABLE = 10;
    public static final int POINTER_RANGE_START_ADDR = 11;
    public static final int POINTER_RANGE_SIZE = 12;
    /** The access the current context's device has to the memory (ACCESS_FLAG_*). */
    public static final int POINTER_ACCESS_FLAGS = 16;
    /** CUpointer_attribute_access_flags: read and write. */
    public static final int ACCESS_FLAG_READWRITE = 3;
    /** CUmemorytype values returned for POINTER_MEMORY_TYPE. */
    public static final int MEMORYTYPE_HOST = 1;
    public static final int MEMORYTYPE_DEVICE = 2;

    private CuMemory() {
    }

    private static final class H {
        static final DriverCall ALLOC = DriverCall.of("cuMemAlloc_v2", out("&dptr", JAVA_LONG), LONG);
        static final DriverCall FREE = DriverCall.of("cuMemFree_v2", DPTR);
        static final DriverCall ALLOC_ASYNC = DriverCall.of("cuMemAllocAsync", out("&dptr", JAVA_LONG), LONG, PTR);
        static final DriverCall FREE_ASYNC = DriverCall.of("cuMemFreeAsync", DPTR, PTR);
        static final DriverCall HOST_ALLOC = DriverCall.of("cuMemHostAlloc", out("&ptr", ADDRESS), LONG, INT);
        static final DriverCall HOST_FREE = DriverCall.of("cuMemFreeHost", PTR);
        static final DriverCall HOST_REGISTER = DriverCall.of("cuMemHostRegister_v2", PTR, LONG, INT);
        static final DriverCall HOST_UNREGISTER = DriverCall.of("cuMemHostUnregister", PTR);
        static final DriverCall HOST_DEVICE_POINTER = DriverCall.of("cuMemHostGetDevicePointer_v2",
                out("&dptr", JAVA_LONG), PTR, fixed(0));
        static final DriverCall HTOD = DriverCall.of("cuMemcpyHtoD_v2", DPTR, PTR, LONG);
        static final DriverCall DTOH = DriverCall.of("cuMemcpyDtoH_v2", PTR, DPTR, LONG);
        static final DriverCall DTOD = DriverCall.of("cuMemcpyDtoD_v2", DPTR, DPTR, LONG);
        static final DriverCall HTOD_ASYNC = DriverCall.hot("cuMemcpyHtoDAsync_v2", DPTR, PTR, LONG, PTR);
        static final DriverCall DTOH_ASYNC = DriverCall.hot("cuMemcpyDtoHAsync_v2", PTR, DPTR, LONG, PTR);
        static final DriverCall DTOD_ASYNC = DriverCall.hot("cuMemcpyDtoDAsync_v2", DPTR, DPTR, LONG, PTR);
        static final DriverCall COPY_ASYNC = DriverCall.hot("cuMemcpyAsync", DPTR, DPTR, LONG, PTR);
        static final DriverCall PEER_ASYNC = DriverCall.hot("cuMemcpyPeerAsync", DPTR, PTR, DPTR, PTR, LONG, PTR);
        static final DriverCall PEER = DriverCall.of("cuMemcpyPeer", DPTR, PTR, DPTR, PTR, LONG);
        static final DriverCall MEMSET_D8 = DriverCall.of("cuMemsetD8_v2", DPTR, BYTE, LONG);
        static final DriverCall MEMSET_D8_ASYNC = DriverCall.hot("cuMemsetD8Async", DPTR, BYTE, LONG, PTR);
        static final DriverCall MEMSET_D32_ASYNC = DriverCall.hot("cuMemsetD32Async", DPTR, INT, LONG, PTR);
        static final DriverCall MEM_GET_INFO = DriverCall.of("cuMemGetInfo_v2", label("&free"), label("&total"));
        static final DriverCall POINTER_ATTRIBUTE = DriverCall.of("cuPointerGetAttribute", out("&value", JAVA_LONG),
                INT, DPTR);
    }

    /** Allocates {@code bytes} of device memory in the current context (256-byte aligned). */
    public static long alloc(long bytes) {
        return H.ALLOC.call(bytes);
    }

    /** Frees device memory from {@link #alloc}. */
    public static void free(long dptr) {
        H.FREE.call(dptr);
    }

    /**
     * Allocates {@code bytes} from the current device's default memory pool, stream-ordered (cudaMallocAsync's
     * memory: other GPUs reach it only where the pool grants them access).
     */
    public static long allocAsync(long bytes, MemorySegment stream) {
        return H.ALLOC_ASYNC.call(bytes, stream);
    }

    /** Returns memory from {@link #allocAsync} to its pool, stream-ordered. */
    public static void freeAsync(long dptr, MemorySegment stream) {
        H.FREE_ASYNC.call(dptr, stream);
    }

    /** Allocates page-locked host memory ({@code flags}: HOST_ALLOC_*); the segment has {@code bytes} bytes. */
    @SuppressWarnings("restricted") // FFM: JCCL is run with --enable-native-access
    public static MemorySegment hostAlloc(long bytes, int flags) {
        return MemorySegment.ofAddress(H.HOST_ALLOC.call(bytes, flags)).reinterpret(bytes);
    }

    /** Frees memory from {@link #hostAlloc}. */
    public static void hostFree(MemorySegment host) {
        H.HOST_FREE.call(host);
    }

    /**
     * Page-locks existing host memory (a mapping of a shared-memory file, say) and, with HOST_ALLOC_DEVICEMAP, maps
     * it for the devices ({@code flags}: HOST_ALLOC_*, which have the values of CU_MEMHOSTREGISTER_PORTABLE and
     * _DEVICEMAP). Undo with {@link #hostUnregister} before the memory goes.
     */
    public static void hostRegister(MemorySegment host, int flags) {
        H.HOST_REGISTER.call(host, host.byteSize(), flags);
    }

    /** Undoes {@link #hostRegister}. */
    public static void hostUnregister(MemorySegment host) {
        H.HOST_UNREGISTER.call(host);
    }

    /** The device-side address of mapped pinned host memory (equal to the host address with unified addressing). */
    public static long hostDevicePointer(MemorySegment host) {
        return H.HOST_DEVICE_POINTER.call(host);
    }

    /** Synchronous host-to-device copy; {@code src} must be native memory. */
    public static void copyHtoD(long dst, MemorySegment src, long bytes) {
        H.HTOD.call(dst, src, bytes);
    }

    /** Synchronous device-to-host copy; {@code dst} must be native memory. */
    public static void copyDtoH(MemorySegment dst, long src, long bytes) {
        H.DTOH.call(dst, src, bytes);
    }

    /** Synchronous device-to-device copy. */
    public static void copyDtoD(long dst, long src, long bytes) {
        H.DTOD.call(dst, src, bytes);
    }

    /** Stream-ordered host-to-device copy (truly asynchronous only from pinned memory). */
    public static void copyHtoDAsync(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        H.HTOD_ASYNC.call(dst, src, bytes, stream);
    }

    /** Stream-ordered device-to-host copy (truly asynchronous only into pinned memory). */
    public static void copyDtoHAsync(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        H.DTOH_ASYNC.call(dst, src, bytes, stream);
    }

    /** Stream-ordered device-to-device copy within one device. */
    public static void copyDtoDAsync(long dst, long src, long bytes, MemorySegment stream) {
        H.DTOD_ASYNC.call(dst, src, bytes, stream);
    }

    /** Stream-ordered copy between any two unified addresses (host or any device). */
    public static void copyAsync(long dst, long src, long bytes, MemorySegment stream) {
        H.COPY_ASYNC.call(dst, src, bytes, stream);
    }

    /** Stream-ordered copy from memory of {@code srcCtx}'s device to memory of {@code dstCtx}'s device. */
    public static void copyPeerAsync(long dst, MemorySegment dstCtx, long src, MemorySegment srcCtx, long bytes,
                                     MemorySegment stream) {
        H.PEER_ASYNC.call(dst, dstCtx, src, srcCtx, bytes, stream);
    }

    /** Synchronous copy between two devices' memory. */
    public static void copyPeer(long dst, MemorySegment dstCtx, long src, MemorySegment srcCtx, long bytes) {
        H.PEER.call(dst, dstCtx, src, srcCtx, bytes);
    }

    /** Sets {@code bytes} bytes to {@code value}, synchronously. */
    public static void memsetD8(long dst, byte value, long bytes) {
        H.MEMSET_D8.call(dst, value, bytes);
    }

    /** Sets {@code bytes} bytes to {@code value}, stream-ordered. */
    public static void memsetD8Async(long dst, byte value, long bytes, MemorySegment stream) {
        H.MEMSET_D8_ASYNC.call(dst, value, bytes, stream);
    }

    /** Sets {@code words} 32-bit words (not bytes) to {@code value}, stream-ordered; {@code dst} 4-byte aligned. */
    public static void memsetD32Async(long dst, int value, long words, MemorySegment stream) {
        H.MEMSET_D32_ASYNC.call(dst, value, words, stream);
    }

    /** {free, total} bytes of the current context's device. */
    public static long[] memInfo() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment free = a.allocate(JAVA_LONG);
            MemorySegment total = a.allocate(JAVA_LONG);
            H.MEM_GET_INFO.call(free, total);
            return new long[] {free.get(JAVA_LONG, 0), total.get(JAVA_LONG, 0)};
        }
    }

    /**
     * The CPU address of the memory at {@code ptr} (CU_POINTER_ATTRIBUTE_HOST_POINTER), or 0 when the CPU cannot
     * address it: a GPU's cuMemAlloc memory has none (the driver fails the query); pinned host memory and the CPU
     * emulator's device memory have one.
     */
    public static long hostPointer(long ptr) {
        try {
            return H.POINTER_ATTRIBUTE.call(POINTER_HOST_POINTER, ptr);
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /**
     * The {@code bytes} at device pointer {@code ptr} as the CPU addresses them ({@link #hostPointer}), or null when
     * it cannot.
     */
    @SuppressWarnings("restricted") // FFM: JCCL is run with --enable-native-access
    public static MemorySegment hostView(long ptr, long bytes) {
        long host = hostPointer(ptr);
        return host == 0 ? null : MemorySegment.ofAddress(host).reinterpret(bytes);
    }

    /**
     * A CUpointer_attribute of {@code ptr}: 4-byte attributes (MEMORY_TYPE, DEVICE_ORDINAL) come back as their int
     * value, the others (RANGE_START_ADDR, RANGE_SIZE; booleans and flags, read from a zeroed 8-byte value whatever
     * their width) as a long.
     */
    public static long pointerAttribute(int attribute, long ptr) {
        long v = H.POINTER_ATTRIBUTE.call(attribute, ptr);
        boolean fourBytes = attribute == POINTER_MEMORY_TYPE || attribute == POINTER_DEVICE_ORDINAL;
        return fourBytes ? (int) v : v;
    }
}
