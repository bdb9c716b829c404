package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.driver.CuIpcGraphs;
import io.jccl.cuda.internal.driver.CuStreams;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A CUDA stream of one device: created here non-blocking (no implicit synchronisation with the legacy NULL
 * stream), or another library's stream {@linkplain #wrap(CudaDevice, long) wrapped} (closing such a stream destroys
 * nothing). Work queued on a stream runs in order; JCCL's GPU collectives are stream-ordered and return before the
 * work has run. A stream can record its work into a {@link CudaGraph} ({@link #beginCapture} / {@link #endCapture}).
 *
 * <p>Thread: issue work from one thread at a time; {@link #handle()} may be passed to other libraries (NCCL,
 * cuBLAS) as their {@code cudaStream_t}. Mirrors the stream the user passes to every NCCL call.
 */
public final class CudaStream implements AutoCloseable {
    /** CU_STREAM_PER_THREAD; 0 and CU_STREAM_LEGACY (1) name the legacy default stream. */
    private static final long PER_THREAD_STREAM = 2;

    private final CudaDevice device;
    private final MemorySegment handle;
    private final boolean borrowed;
    private boolean closed;
    /**
     * While a capture begun here runs: the communicators whose kernels it captured, with their memory epochs then
     * (the graph checks them before each replay); else null.
     */
    private java.util.Map<CaptureGuard, Integer> captured;

    private CudaStream(CudaDevice device, MemorySegment handle, boolean borrowed) {
        this.device = device;
        this.handle = handle;
        this.borrowed = borrowed;
    }

    /** A new non-blocking stream on {@code device} with default priority. */
    public static CudaStream create(CudaDevice device) {
        return create(device, 0);
    }

    /** A new non-blocking stream with a priority (lower numbers run first; 0 = default). */
    public static CudaStream create(CudaDevice device, int priority) {
        Objects.requireNonNull(device, "device");
        device.makeCurrent();
        return new CudaStream(device, CuStreams.createStream(CuStreams.STREAM_NON_BLOCKING, priority), false);
    }

    /**
     * Another library's stream (a {@code cudaStream_t} or {@code CUstream}: cudaStreamCreate, PyTorch's current
     * stream, a stream from JCuda or cuBLAS), so that JCCL's calls queue on it as NCCL's take the caller's stream.
     * {@code 0} is the legacy default stream and {@code 2} ({@code cudaStreamPerThread}) the per-thread one. The
     * stream must be live and belong to {@code device}'s primary context, the one the CUDA runtime uses (JCCL checks
     * the context with the driver). {@link #close()} destroys nothing: the stream's owner does that.
     *
     * @throws JcclException {@link Result#INVALID_ARGUMENT} when the stream belongs to another context, naming it
     */
    public static CudaStream wrap(CudaDevice device, long handle) {
        return wrap(device, MemorySegment.ofAddress(handle));
    }

    /** {@link #wrap(CudaDevice, long)} for a handle held as a {@link MemorySegment} (as FFM code holds pointers). */
    public static CudaStream wrap(CudaDevice device, MemorySegment handle) {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(handle, "handle");
        device.makeCurrent();
        if (handle.address() > PER_THREAD_STREAM) {
            MemorySegment context = CuStreams.streamContext(handle);
            if (context.address() != device.context().address()) {
                CudaDevice owner = CudaDevice.withContext(context);
                throw new JcclException(Result.INVALID_ARGUMENT, "stream 0x" + Long.toHexString(handle.address())
                        + " belongs to " + (owner != null ? "GPU " + owner.ordinal() + "'s primary context"
                        : "CUDA context 0x" + Long.toHexString(context.address())) + ", not to GPU " + device.ordinal()
                        + "'s primary context, the one JCCL and the CUDA runtime use: create the stream on GPU "
                        + device.ordinal() + " in that context");
            }
        }
        return new CudaStream(device, handle, true);
    }

    /** True for a stream made by {@link #wrap}: another library owns it. */
    public boolean isBorrowed() {
        return borrowed;
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
        captured = new java.util.IdentityHashMap<>();
    }

    /** A communicator launched a kernel on this stream: a capture begun here remembers its memory epoch. */
    void launched(CaptureGuard guard) {
        java.util.Map<CaptureGuard, Integer> c = captured;
        if (c != null) {
            c.putIfAbsent(guard, guard.epoch());
        }
    }

    /**
     * Ends a capture that went wrong (active or invalidated), dropping whatever was captured; does nothing when
     * the stream is not capturing. Never throws for the capture's own failure.
     */
    public void abortCapture() {
        checkOpen();
        device.makeCurrent();
        captured = null;
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
        java.util.Map<CaptureGuard, Integer> c = captured;
        captured = null;
        return new CudaGraph(device, CuIpcGraphs.endCapture(handle), c == null ? java.util.Map.of() : c);
    }

    /** True while this stream is recording into a graph. */
    public boolean isCapturing() {
        checkOpen();
        device.makeCurrent();
        return CuIpcGraphs.captureStatus(handle) == CuIpcGraphs.CAPTURE_STATUS_ACTIVE;
    }

    /**
     * Destroys the stream (work already queued still completes); a {@linkplain #wrap wrapped} stream is only marked
     * closed here. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!borrowed) {
            device.makeCurrent();
            CuStreams.destroyStream(handle);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new JcclException(Result.INVALID_USAGE, "CUDA stream on device " + device.ordinal() + " is closed");
        }
    }

    /**
     * Streams are equal when they are the same CUDA stream: the same device and handle (two {@link #wrap}s of one
     * handle are equal, so JCCL adds no ordering between them).
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof CudaStream s && s.device == device && s.handle.address() == handle.address();
    }

    @Override
    public int hashCode() {
        return Long.hashCode(handle.address()) * 31 + device.ordinal();
    }

    @Override
    public String toString() {
        return "CudaStream[device " + device.ordinal() + ", 0x" + Long.toHexString(handle.address())
                + (borrowed ? ", borrowed]" : "]");
    }
}
