package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.driver.CuStreams;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A CUDA event of one device: a marker recorded on a stream, used to order streams ({@link CudaStream#waitFor}),
 * to learn when work is done, and to time GPU work ({@link #elapsedMillis}, about 0.5 µs resolution).
 *
 * <p>Thread: use from one thread at a time. Mirrors the cudaEvent_t NCCL uses for stream dependencies.
 */
public final class CudaEvent implements AutoCloseable {
    private final CudaDevice device;
    private final MemorySegment handle;
    private final boolean timing;
    private boolean closed;

    private CudaEvent(CudaDevice device, MemorySegment handle, boolean timing) {
        this.device = device;
        this.handle = handle;
        this.timing = timing;
    }

    /** An event for ordering and completion only (cheaper: timing disabled). */
    public static CudaEvent create(CudaDevice device) {
        return create(device, false);
    }

    /** An event; with {@code timing} it can be passed to {@link #elapsedMillis}. */
    public static CudaEvent create(CudaDevice device, boolean timing) {
        Objects.requireNonNull(device, "device");
        device.makeCurrent();
        int flags = timing ? CuStreams.EVENT_DEFAULT : CuStreams.EVENT_DISABLE_TIMING;
        return new CudaEvent(device, CuStreams.createEvent(flags), timing);
    }

    public CudaDevice device() {
        return device;
    }

    /** The CUevent (== cudaEvent_t) handle. */
    public MemorySegment handle() {
        checkOpen();
        return handle;
    }

    /** Records this event after the work queued so far on {@code stream} (same device). */
    public void record(CudaStream stream) {
        checkOpen();
        if (stream.device() != device) {
            throw new JcclException(Result.INVALID_ARGUMENT, "event of device " + device.ordinal()
                    + " cannot be recorded on a stream of device " + stream.device().ordinal());
        }
        device.makeCurrent();
        CuStreams.recordEvent(handle, stream.handle());
    }

    /** Blocks until the work before the last {@link #record} has finished. */
    public void synchronize() {
        checkOpen();
        device.makeCurrent();
        CuStreams.synchronizeEvent(handle);
    }

    /** True when the work before the last {@link #record} has finished (or it was never recorded). */
    public boolean isDone() {
        checkOpen();
        device.makeCurrent();
        return CuStreams.queryEvent(handle);
    }

    /** Milliseconds from {@code start} to {@code end}; both completed, both created with timing. */
    public static float elapsedMillis(CudaEvent start, CudaEvent end) {
        if (!start.timing || !end.timing) {
            throw new JcclException(Result.INVALID_USAGE, "elapsedMillis needs events created with timing=true");
        }
        start.checkOpen();
        end.checkOpen();
        start.device.makeCurrent();
        return CuStreams.elapsedMs(start.handle, end.handle);
    }

    /** Destroys the event. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        device.makeCurrent();
        CuStreams.destroyEvent(handle);
    }

    private void checkOpen() {
        if (closed) {
            throw new JcclException(Result.INVALID_USAGE, "CUDA event on device " + device.ordinal() + " is closed");
        }
    }
}
