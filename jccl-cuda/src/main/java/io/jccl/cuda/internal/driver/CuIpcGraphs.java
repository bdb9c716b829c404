package io.jccl.cuda.internal.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

import static io.jccl.cuda.internal.driver.DriverCall.Arg.DPTR;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.INT;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.PTR;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.fixed;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.label;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.out;
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
        static final DriverCall IPC_GET = DriverCall.of("cuIpcGetMemHandle", label("&handle"), DPTR);
        static final DriverCall IPC_OPEN = DriverCall.of("cuIpcOpenMemHandle_v2", out("&dptr", JAVA_LONG),
                label(IPC_HANDLE, "<64-byte handle>"), fixed(IPC_LAZY_ENABLE_PEER_ACCESS));
        static final DriverCall IPC_CLOSE = DriverCall.of("cuIpcCloseMemHandle", DPTR);
        static final DriverCall BEGIN_CAPTURE = DriverCall.of("cuStreamBeginCapture_v2", PTR, INT);
        static final DriverCall END_CAPTURE = DriverCall.of("cuStreamEndCapture", PTR, out("&graph", ADDRESS));
        static final DriverCall IS_CAPTURING = DriverCall.of("cuStreamIsCapturing", PTR, out("&status", JAVA_INT));
        static final DriverCall EXCHANGE_MODE = DriverCall.of("cuThreadExchangeStreamCaptureMode", PTR).unchecked();
        static final DriverCall INSTANTIATE = DriverCall.of("cuGraphInstantiateWithFlags", out("&exec", ADDRESS),
                PTR, fixed(0L));
        static final DriverCall GRAPH_LAUNCH = DriverCall.hot("cuGraphLaunch", PTR, PTR);
        static final DriverCall GRAPH_UPLOAD = DriverCall.of("cuGraphUpload", PTR, PTR);
        static final DriverCall EXEC_DESTROY = DriverCall.of("cuGraphExecDestroy", PTR);
        static final DriverCall GRAPH_DESTROY = DriverCall.of("cuGraphDestroy", PTR);
    }

    /** The IPC handle of the allocation whose base address is {@code base}. */
    public static byte[] ipcGetMemHandle(long base) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(IPC_HANDLE);
            H.IPC_GET.call(h, base);
            return h.toArray(JAVA_BYTE);
        }
    }

    /** Maps another process's allocation into the current context; returns its address here. */
    public static long ipcOpenMemHandle(byte[] handle) {
        if (handle.length != IPC_HANDLE_BYTES) {
            throw new IllegalArgumentException("a CUipcMemHandle has 64 bytes, got " + handle.length);
        }
        try (Arena a = Arena.ofConfined()) {
            return H.IPC_OPEN.call(a.allocate(IPC_HANDLE).copyFrom(MemorySegment.ofArray(handle)));
        }
    }

    /** Unmaps memory opened with {@link #ipcOpenMemHandle}. */
    public static void ipcCloseMemHandle(long dptr) {
        H.IPC_CLOSE.call(dptr);
    }

    /** Starts capturing the work issued to {@code stream} into a graph. */
    public static void beginCapture(MemorySegment stream, int mode) {
        H.BEGIN_CAPTURE.call(stream, mode);
    }

    /** Ends the capture on {@code stream} and returns the captured CUgraph. */
    public static MemorySegment endCapture(MemorySegment stream) {
        return MemorySegment.ofAddress(H.END_CAPTURE.call(stream));
    }

    /** The stream's CUstreamCaptureStatus (CAPTURE_STATUS_*). */
    public static int captureStatus(MemorySegment stream) {
        return (int) H.IS_CAPTURING.call(stream);
    }

    /** Sets the calling thread's capture interaction mode; returns the previous one. */
    public static int exchangeCaptureMode(int mode) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = a.allocateFrom(JAVA_INT, mode);
            long rc = H.EXCHANGE_MODE.call(m);
            if (rc != 0) {
                throw H.EXCHANGE_MODE.error((int) rc, mode);
            }
            return m.get(JAVA_INT, 0);
        }
    }

    /** Instantiates an executable graph. */
    public static MemorySegment instantiate(MemorySegment graph) {
        return MemorySegment.ofAddress(H.INSTANTIATE.call(graph));
    }

    /** Launches an executable graph on a stream. Allocation-free. */
    public static void launch(MemorySegment exec, MemorySegment stream) {
        H.GRAPH_LAUNCH.call(exec, stream);
    }

    /** Uploads an executable graph's work ahead of its first launch. */
    public static void upload(MemorySegment exec, MemorySegment stream) {
        H.GRAPH_UPLOAD.call(exec, stream);
    }

    public static void destroyExec(MemorySegment exec) {
        H.EXEC_DESTROY.call(exec);
    }

    public static void destroyGraph(MemorySegment graph) {
        H.GRAPH_DESTROY.call(graph);
    }
}
