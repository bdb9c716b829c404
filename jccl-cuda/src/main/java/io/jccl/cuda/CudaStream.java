package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.driver.CuIpcGraphs;
import io.jccl.cuda.internal.driver.CuStreams;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A CUDA stream of one device, created non-blocking (no implicit synchronisation with the legacy NULL stream).
 * Work queued on a stream runs in order; JCCL's GPU collectives are stream-ordered and return before the work
 * has run. A stream can record its work into a {@link CudaGraph} ({@link #beginCapture} / {@link #endCapture}).
 *
 * <p>Thread: issue work from one thread at a time; {@link #handle()} may be passed to other libraries (NCCL,
 * cuBLAS) as their {@code cudaStream_t}. Mirrors the stream the user passes to every NCCL call.
 */
public final class CudaStream implements AutoCloseable {
    private final CudaDevice device;
    private final MemorySegment handle;
    private boolean closed;

    private CudaStream(CudaDevice device, MemorySegment handle) {
        this.device = device;
        this.handle = handle;
    }

    /** A new non-blocking stream on {@code device} with default priority. */
    public static CudaStream create(CudaDevice device) {
        return create(device, 0);
    }

    /** A new non-blocking stream with a priority (lower numbers run first; 0 = default). */
    public static CudaStream create(CudaDevice device, int priority) {
        Objects.requireNonNull(device, "device");
        device.makeCurrent();
        return new CudaStream(device, CuStreams.createStream(CuStreams.STREAM_NON_BLOCKING, priority));
    }

    public CudaDevice device() {
        return device;
    }

    /** The CUstream (== cudaStream_t) handle. */
    public MemorySegment handle() {
        checkOpen();
        return handle;
    }

    /** Blocks until all work queued so far has finished. */
    public void synchronize() {
        checkOpen();
        device.makeCurrent();
        CuStreams.synchronizeStream(handle);
    }

    /** True when all work queued so far has finished. */
    public boolean isIdle() {
        checkOpen();
        device.makeCurrent();
        return CuStreams.queryStream(handle);
    }

    /** Makes work queued on this stream after this call wait until {@code event} has completed. */
    public void waitFor(CudaEvent event) {
        checkOpen();
        device.makeCurrent();
        CuStreams.streamWaitEvent(handle, event.handle());
    }

    /**
     * Starts recording the work issued to this stream into a graph instead of running it (thread-local capture
     * mode: other threads may keep using CUDA). Every JCCL collective may be captured.
     */
    public void beginCapture() {
        beginCapture(false);
    }

    /**
     * Starts a capture; with {@code relaxed} the calling thread may still make calls that are unsafe during capture
     * (some libraries, NCCL among them, may need that), otherwise as {@link #beginCapture()}.
     */
    public void beginCapture(boolean relaxed) {
        checkOpen();
        device.makeCurrent();
        CuIpcGraphs.beginCapture(handle, relaxed ? CuIpcGraphs.CAPTURE_MODE_RELAXED
                : CuIpcGraphs.CAPTURE_MODE_THREAD_LOCAL);
    }

    /**
     * Ends a capture that went wrong (active or invalidated), dropping whatever was captured; does nothing when
     * the stream is not capturing. Never throws for the capture's own failure.
     */
    public void abortCapture() {
        checkOpen();
        device.makeCurrent();
        if (CuIpcGraphs.captureStatus(handle) == CuIpcGraphs.CAPTURE_STATUS_NONE) {
            return;
        }
        try {
            MemorySegment graph = CuIpcGraphs.endCapture(handle);
            if (!graph.equals(MemorySegment.NULL)) {
                CuIpcGraphs.destroyGraph(graph);
            }
        } catch (JcclException e) {
            // an invalidated capture ends with an error: the capture is over either way
        }
    }

    /**
     * Ends {@link #beginCapture} and returns the captured graph; it is instantiated at its first
     * {@link CudaGraph#launch}, so end the captures of every stream before launching any.
     */
    public CudaGraph endCapture() {
        checkOpen();
        device.makeCurrent();
        return new CudaGraph(device, CuIpcGraphs.endCapture(handle));
    }

    /** True while this stream is recording into a graph. */
    public boolean isCapturing() {
        checkOpen();
        device.makeCurrent();
        return CuIpcGraphs.captureStatus(handle) == CuIpcGraphs.CAPTURE_STATUS_ACTIVE;
    }

    /** Destroys the stream (work already queued still completes). Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        device.makeCurrent();
        CuStreams.destroyStream(handle);
    }

    private void checkOpen() {
        if (closed) {
            throw new JcclException(Result.INVALID_USAGE, "CUDA stream on device " + device.ordinal() + " is closed");
        }
    }

    @Override
    public String toString() {
        return "CudaStream[device " + device.ordinal() + ", 0x" + Long.toHexString(handle.address()) + "]";
    }
}
