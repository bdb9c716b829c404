package io.jccl.cuda.internal.driver;

import io.jccl.cuda.internal.ffm.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.jccl.cuda.internal.driver.CuCheck.error;
import static io.jccl.cuda.internal.driver.CuCheck.hex;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
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
        static final MethodHandle ALLOC = CudaLibrary.bind("cuMemAlloc_v2", ADDRESS, JAVA_LONG);
        static final MethodHandle FREE = CudaLibrary.bind("cuMemFree_v2", JAVA_LONG);
        static final MethodHandle ALLOC_ASYNC = CudaLibrary.bind("cuMemAllocAsync", ADDRESS, JAVA_LONG, ADDRESS);
        static final MethodHandle FREE_ASYNC = CudaLibrary.bind("cuMemFreeAsync", JAVA_LONG, ADDRESS);
        static final MethodHandle HOST_ALLOC = CudaLibrary.bind("cuMemHostAlloc", ADDRESS, JAVA_LONG, JAVA_INT);
        static final MethodHandle HOST_FREE = CudaLibrary.bind("cuMemFreeHost", ADDRESS);
        static final MethodHandle HOST_REGISTER = CudaLibrary.bind("cuMemHostRegister_v2", ADDRESS, JAVA_LONG,
                JAVA_INT);
        static final MethodHandle HOST_UNREGISTER = CudaLibrary.bind("cuMemHostUnregister", ADDRESS);
        static final MethodHandle HOST_DEVICE_POINTER = CudaLibrary.bind("cuMemHostGetDevicePointer_v2", ADDRESS,
                ADDRESS, JAVA_INT);
        static final MethodHandle HTOD = CudaLibrary.bind("cuMemcpyHtoD_v2", JAVA_LONG, ADDRESS, JAVA_LONG);
        static final MethodHandle DTOH = CudaLibrary.bind("cuMemcpyDtoH_v2", ADDRESS, JAVA_LONG, JAVA_LONG);
        static final MethodHandle DTOD = CudaLibrary.bind("cuMemcpyDtoD_v2", JAVA_LONG, JAVA_LONG, JAVA_LONG);
        static final MethodHandle HTOD_ASYNC = CudaLibrary.bindHot("cuMemcpyHtoDAsync_v2", JAVA_LONG, ADDRESS,
                JAVA_LONG, ADDRESS);
        static final MethodHandle DTOH_ASYNC = CudaLibrary.bindHot("cuMemcpyDtoHAsync_v2", ADDRESS, JAVA_LONG,
                JAVA_LONG, ADDRESS);
        static final MethodHandle DTOD_ASYNC = CudaLibrary.bindHot("cuMemcpyDtoDAsync_v2", JAVA_LONG, JAVA_LONG,
                JAVA_LONG, ADDRESS);
        static final MethodHandle COPY_ASYNC = CudaLibrary.bindHot("cuMemcpyAsync", JAVA_LONG, JAVA_LONG, JAVA_LONG,
                ADDRESS);
        static final MethodHandle PEER_ASYNC = CudaLibrary.bindHot("cuMemcpyPeerAsync", JAVA_LONG, ADDRESS, JAVA_LONG,
                ADDRESS, JAVA_LONG, ADDRESS);
        static final MethodHandle PEER = CudaLibrary.bind("cuMemcpyPeer", JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS,
                JAVA_LONG);
        static final MethodHandle MEMSET_D8 = CudaLibrary.bind("cuMemsetD8_v2", JAVA_LONG, JAVA_BYTE, JAVA_LONG);
        static final MethodHandle MEMSET_D8_ASYNC = CudaLibrary.bindHot("cuMemsetD8Async", JAVA_LONG, JAVA_BYTE,
                JAVA_LONG, ADDRESS);
        static final MethodHandle MEMSET_D32_ASYNC = CudaLibrary.bindHot("cuMemsetD32Async", JAVA_LONG, JAVA_INT,
                JAVA_LONG, ADDRESS);
        static final MethodHandle MEM_GET_INFO = CudaLibrary.bind("cuMemGetInfo_v2", ADDRESS, ADDRESS);
        static final MethodHandle POINTER_ATTRIBUTE = CudaLibrary.bind("cuPointerGetAttribute", ADDRESS, JAVA_INT,
                JAVA_LONG);
    }

    /** Allocates {@code bytes} of device memory in the current context (256-byte aligned). */
    public static long alloc(long bytes) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(JAVA_LONG);
            int rc = (int) H.ALLOC.invokeExact(p, bytes);
            if (rc != 0) {
                throw error(rc, "cuMemAlloc_v2", "&dptr", bytes);
            }
            return p.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Frees device memory from {@link #alloc}. */
    public static void free(long dptr) {
        int rc;
        try {
            rc = (int) H.FREE.invokeExact(dptr);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemFree_v2", hex(dptr));
        }
    }

    /**
     * Allocates {@code bytes} from the current device's default memory pool, stream-ordered (cudaMallocAsync's
     * memory: other GPUs reach it only where the pool grants them access).
     */
    public static long allocAsync(long bytes, MemorySegment stream) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(JAVA_LONG);
            int rc = (int) H.ALLOC_ASYNC.invokeExact(p, bytes, stream);
            if (rc != 0) {
                throw error(rc, "cuMemAllocAsync", "&dptr", bytes, hex(stream));
            }
            return p.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Returns memory from {@link #allocAsync} to its pool, stream-ordered. */
    public static void freeAsync(long dptr, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.FREE_ASYNC.invokeExact(dptr, stream);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemFreeAsync", hex(dptr), hex(stream));
        }
    }

    /** Allocates page-locked host memory ({@code flags}: HOST_ALLOC_*); the segment has {@code bytes} bytes. */
    @SuppressWarnings("restricted") // FFM: JCCL is run with --enable-native-access
    public static MemorySegment hostAlloc(long bytes, int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int rc = (int) H.HOST_ALLOC.invokeExact(p, bytes, flags);
            if (rc != 0) {
                throw error(rc, "cuMemHostAlloc", "&ptr", bytes, flags);
            }
            return p.get(ADDRESS, 0).reinterpret(bytes);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Frees memory from {@link #hostAlloc}. */
    public static void hostFree(MemorySegment host) {
        int rc;
        try {
            rc = (int) H.HOST_FREE.invokeExact(host);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemFreeHost", hex(host));
        }
    }

    /**
     * Page-locks existing host memory (a mapping of a shared-memory file, say) and, with HOST_ALLOC_DEVICEMAP, maps
     * it for the devices ({@code flags}: HOST_ALLOC_*, which have the values of CU_MEMHOSTREGISTER_PORTABLE and
     * _DEVICEMAP). Undo with {@link #hostUnregister} before the memory goes.
     */
    public static void hostRegister(MemorySegment host, int flags) {
        int rc;
        try {
            rc = (int) H.HOST_REGISTER.invokeExact(host, host.byteSize(), flags);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemHostRegister_v2", hex(host), host.byteSize(), flags);
        }
    }

    /** Undoes {@link #hostRegister}. */
    public static void hostUnregister(MemorySegment host) {
        int rc;
        try {
            rc = (int) H.HOST_UNREGISTER.invokeExact(host);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemHostUnregister", hex(host));
        }
    }

    /** The device-side address of mapped pinned host memory (equal to the host address with unified addressing). */
    public static long hostDevicePointer(MemorySegment host) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(JAVA_LONG);
            int rc = (int) H.HOST_DEVICE_POINTER.invokeExact(p, host, 0);
            if (rc != 0) {
                throw error(rc, "cuMemHostGetDevicePointer_v2", "&dptr", hex(host), 0);
            }
            return p.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Synchronous host-to-device copy; {@code src} must be native memory. */
    public static void copyHtoD(long dst, MemorySegment src, long bytes) {
        int rc;
        try {
            rc = (int) H.HTOD.invokeExact(dst, src, bytes);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemcpyHtoD_v2", hex(dst), hex(src), bytes);
        }
    }

    /** Synchronous device-to-host copy; {@code dst} must be native memory. */
    public static void copyDtoH(MemorySegment dst, long src, long bytes) {
        int rc;
        try {
            rc = (int) H.DTOH.invokeExact(dst, src, bytes);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemcpyDtoH_v2", hex(dst), hex(src), bytes);
        }
    }

    /** Synchronous device-to-device copy. */
    public static void copyDtoD(long dst, long src, long bytes) {
        int rc;
        try {
            rc = (int) H.DTOD.invokeExact(dst, src, bytes);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemcpyDtoD_v2", hex(dst), hex(src), bytes);
        }
    }

    /** Stream-ordered host-to-device copy (truly asynchronous only from pinned memory). */
    public static void copyHtoDAsync(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.HTOD_ASYNC.invokeExact(dst, src, bytes, stream);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemcpyHtoDAsync_v2", hex(dst), hex(src), bytes, hex(stream));
        }
    }

    /** Stream-ordered device-to-host copy (truly asynchronous only into pinned memory). */
    public static void copyDtoHAsync(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.DTOH_ASYNC.invokeExact(dst, src, bytes, stream);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemcpyDtoHAsync_v2", hex(dst), hex(src), bytes, hex(stream));
        }
    }

    /** Stream-ordered device-to-device copy within one device. */
    public static void copyDtoDAsync(long dst, long src, long bytes, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.DTOD_ASYNC.invokeExact(dst, src, bytes, stream);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemcpyDtoDAsync_v2", hex(dst), hex(src), bytes, hex(stream));
        }
    }

    /** Stream-ordered copy between any two unified addresses (host or any device). */
    public static void copyAsync(long dst, long src, long bytes, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.COPY_ASYNC.invokeExact(dst, src, bytes, stream);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemcpyAsync", hex(dst), hex(src), bytes, hex(stream));
        }
    }

    /** Stream-ordered copy from memory of {@code srcCtx}'s device to memory of {@code dstCtx}'s device. */
    public static void copyPeerAsync(long dst, MemorySegment dstCtx, long src, MemorySegment srcCtx, long bytes,
                                     MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.PEER_ASYNC.invokeExact(dst, dstCtx, src, srcCtx, bytes, stream);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemcpyPeerAsync", hex(dst), hex(dstCtx), hex(src), hex(srcCtx), bytes, hex(stream));
        }
    }

    /** Synchronous copy between two devices' memory. */
    public static void copyPeer(long dst, MemorySegment dstCtx, long src, MemorySegment srcCtx, long bytes) {
        int rc;
        try {
            rc = (int) H.PEER.invokeExact(dst, dstCtx, src, srcCtx, bytes);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemcpyPeer", hex(dst), hex(dstCtx), hex(src), hex(srcCtx), bytes);
        }
    }

    /** Sets {@code bytes} bytes to {@code value}, synchronously. */
    public static void memsetD8(long dst, byte value, long bytes) {
        int rc;
        try {
            rc = (int) H.MEMSET_D8.invokeExact(dst, value, bytes);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemsetD8_v2", hex(dst), value, bytes);
        }
    }

    /** Sets {@code bytes} bytes to {@code value}, stream-ordered. */
    public static void memsetD8Async(long dst, byte value, long bytes, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.MEMSET_D8_ASYNC.invokeExact(dst, value, bytes, stream);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemsetD8Async", hex(dst), value, bytes, hex(stream));
        }
    }

    /** Sets {@code words} 32-bit words (not bytes) to {@code value}, stream-ordered; {@code dst} 4-byte aligned. */
    public static void memsetD32Async(long dst, int value, long words, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.MEMSET_D32_ASYNC.invokeExact(dst, value, words, stream);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuMemsetD32Async", hex(dst), value, words, hex(stream));
        }
    }

    /** {free, total} bytes of the current context's device. */
    public static long[] memInfo() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment free = a.allocate(JAVA_LONG);
            MemorySegment total = a.allocate(JAVA_LONG);
            int rc = (int) H.MEM_GET_INFO.invokeExact(free, total);
            if (rc != 0) {
                throw error(rc, "cuMemGetInfo_v2", "&free", "&total");
            }
            return new long[] {free.get(JAVA_LONG, 0), total.get(JAVA_LONG, 0)};
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /**
     * A CUpointer_attribute of {@code ptr}: 4-byte attributes (MEMORY_TYPE, DEVICE_ORDINAL) come back as their int
     * value, the others (RANGE_START_ADDR, RANGE_SIZE; booleans and flags, read from a zeroed 8-byte value whatever
     * their width) as a long.
     */
    public static long pointerAttribute(int attribute, long ptr) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_LONG);
            v.set(JAVA_LONG, 0, 0L);
            int rc = (int) H.POINTER_ATTRIBUTE.invokeExact(v, attribute, ptr);
            if (rc != 0) {
                throw error(rc, "cuPointerGetAttribute", "&value", attribute, hex(ptr));
            }
            boolean fourBytes = attribute == POINTER_MEMORY_TYPE || attribute == POINTER_DEVICE_ORDINAL;
            return fourBytes ? v.get(JAVA_INT, 0) : v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
