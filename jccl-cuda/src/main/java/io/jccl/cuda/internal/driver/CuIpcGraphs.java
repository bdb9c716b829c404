package io.jccl.cuda.internal.driver;

import io.jccl.cuda.internal.ffm.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

import static io.jccl.cuda.internal.driver.CuCheck.error;
import static io.jccl.cuda.internal.driver.CuCheck.hex;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Driver calls for legacy CUDA IPC memory handles, stream capture and CUDA graphs. A {@code CUipcMemHandle} is
 * 64 opaque bytes passed <em>by value</em> to cuIpcOpenMemHandle_v2 (declared as a struct layout so FFM follows
 * the C ABI). Handles are only meaningful between processes on one node with one driver, and cannot be opened
 * in the process that exported them (CUDA_ERROR_INVALID_CONTEXT).
 *
 * <p>Thread: stateless, any platform thread with the right context current. Mirrors NCCL's p2p.cc IPC use and
 * its graph-capture checks (enqueue.cc).
 */
public final class CuIpcGraphs {
    /** Bytes in a CUipcMemHandle. */
    public static final int IPC_HANDLE_BYTES = 64;
    /** The only flag cuIpcOpenMemHandle accepts: enable peer access lazily. */
    public static final int IPC_LAZY_ENABLE_PEER_ACCESS = 1;
    /** CUstreamCaptureMode values. */
    public static final int CAPTURE_MODE_GLOBAL = 0;
    public static final int CAPTURE_MODE_THREAD_LOCAL = 1;
    public static final int CAPTURE_MODE_RELAXED = 2;
    /** CUstreamCaptureStatus values. */
    public static final int CAPTURE_STATUS_NONE = 0;
    public static final int CAPTURE_STATUS_ACTIVE = 1;
    public static final int CAPTURE_STATUS_INVALIDATED = 2;

    static final StructLayout IPC_HANDLE = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(IPC_HANDLE_BYTES, JAVA_BYTE).withName("reserved")).withName("CUipcMemHandle");

    private CuIpcGraphs() {
    }

    private static final class H {
        static final MethodHandle IPC_GET = CudaLibrary.bind("cuIpcGetMemHandle", ADDRESS, JAVA_LONG);
        static final MethodHandle IPC_OPEN = CudaLibrary.bind("cuIpcOpenMemHandle_v2", ADDRESS, IPC_HANDLE, JAVA_INT);
        static final MethodHandle IPC_CLOSE = CudaLibrary.bind("cuIpcCloseMemHandle", JAVA_LONG);
        static final MethodHandle BEGIN_CAPTURE = CudaLibrary.bind("cuStreamBeginCapture_v2", ADDRESS, JAVA_INT);
        static final MethodHandle END_CAPTURE = CudaLibrary.bind("cuStreamEndCapture", ADDRESS, ADDRESS);
        static final MethodHandle IS_CAPTURING = CudaLibrary.bind("cuStreamIsCapturing", ADDRESS, ADDRESS);
        static final MethodHandle EXCHANGE_MODE = CudaLibrary.bind("cuThreadExchangeStreamCaptureMode", ADDRESS);
        static final MethodHandle INSTANTIATE = CudaLibrary.bind("cuGraphInstantiateWithFlags", ADDRESS, ADDRESS,
                JAVA_LONG);
        static final MethodHandle GRAPH_LAUNCH = CudaLibrary.bindHot("cuGraphLaunch", ADDRESS, ADDRESS);
        static final MethodHandle GRAPH_UPLOAD = CudaLibrary.bind("cuGraphUpload", ADDRESS, ADDRESS);
        static final MethodHandle EXEC_DESTROY = CudaLibrary.bind("cuGraphExecDestroy", ADDRESS);
        static final MethodHandle GRAPH_DESTROY = CudaLibrary.bind("cuGraphDestroy", ADDRESS);
    }

    /** The IPC handle of the allocation whose base address is {@code base}. */
    public static byte[] ipcGetMemHandle(long base) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(IPC_HANDLE);
            int rc = (int) H.IPC_GET.invokeExact(h, base);
            if (rc != 0) {
                throw error(rc, "cuIpcGetMemHandle", "&handle", hex(base));
            }
            return h.toArray(JAVA_BYTE);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Maps another process's allocation into the current context; returns its address here. */
    public static long ipcOpenMemHandle(byte[] handle) {
        if (handle.length != IPC_HANDLE_BYTES) {
            throw new IllegalArgumentException("a CUipcMemHandle has 64 bytes, got " + handle.length);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(IPC_HANDLE);
            h.copyFrom(MemorySegment.ofArray(handle));
            MemorySegment p = a.allocate(JAVA_LONG);
            int rc = (int) H.IPC_OPEN.invokeExact(p, h, IPC_LAZY_ENABLE_PEER_ACCESS);
            if (rc != 0) {
                throw error(rc, "cuIpcOpenMemHandle_v2", "&dptr", "<64-byte handle>", IPC_LAZY_ENABLE_PEER_ACCESS);
            }
            return p.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Unmaps memory opened with {@link #ipcOpenMemHandle}. */
    public static void ipcCloseMemHandle(long dptr) {
        int rc;
        try {
            rc = (int) H.IPC_CLOSE.invokeExact(dptr);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuIpcCloseMemHandle", hex(dptr));
        }
    }

    /** Starts capturing the work issued to {@code stream} into a graph. */
    public static void beginCapture(MemorySegment stream, int mode) {
        int rc;
        try {
            rc = (int) H.BEGIN_CAPTURE.invokeExact(stream, mode);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuStreamBeginCapture_v2", hex(stream), mode);
        }
    }

    /** Ends the capture on {@code stream} and returns the captured CUgraph. */
    public static MemorySegment endCapture(MemorySegment stream) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment g = a.allocate(ADDRESS);
            int rc = (int) H.END_CAPTURE.invokeExact(stream, g);
            if (rc != 0) {
                throw error(rc, "cuStreamEndCapture", hex(stream), "&graph");
            }
            return g.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** The stream's CUstreamCaptureStatus (CAPTURE_STATUS_*). */
    public static int captureStatus(MemorySegment stream) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(JAVA_INT);
            int rc = (int) H.IS_CAPTURING.invokeExact(stream, s);
            if (rc != 0) {
                throw error(rc, "cuStreamIsCapturing", hex(stream), "&status");
            }
            return s.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Sets the calling thread's capture interaction mode; returns the previous one. */
    public static int exchangeCaptureMode(int mode) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = a.allocateFrom(JAVA_INT, mode);
            int rc = (int) H.EXCHANGE_MODE.invokeExact(m);
            if (rc != 0) {
                throw error(rc, "cuThreadExchangeStreamCaptureMode", mode);
            }
            return m.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Instantiates an executable graph. */
    public static MemorySegment instantiate(MemorySegment graph) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment e = a.allocate(ADDRESS);
            int rc = (int) H.INSTANTIATE.invokeExact(e, graph, 0L);
            if (rc != 0) {
                throw error(rc, "cuGraphInstantiateWithFlags", "&exec", hex(graph), 0);
            }
            return e.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Launches an executable graph on a stream. Allocation-free. */
    public static void launch(MemorySegment exec, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.GRAPH_LAUNCH.invokeExact(exec, stream);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuGraphLaunch", hex(exec), hex(stream));
        }
    }

    /** Uploads an executable graph's work ahead of its first launch. */
    public static void upload(MemorySegment exec, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.GRAPH_UPLOAD.invokeExact(exec, stream);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuGraphUpload", hex(exec), hex(stream));
        }
    }

    public static void destroyExec(MemorySegment exec) {
        destroy(H.EXEC_DESTROY, "cuGraphExecDestroy", exec);
    }

    public static void destroyGraph(MemorySegment graph) {
        destroy(H.GRAPH_DESTROY, "cuGraphDestroy", graph);
    }

    private static void destroy(MethodHandle h, String call, MemorySegment handle) {
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
}
