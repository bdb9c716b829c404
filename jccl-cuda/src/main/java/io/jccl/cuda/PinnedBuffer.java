package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.driver.CuMemory;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Page-locked host memory, pinned for every CUDA context and mapped into the devices' address space: copies to
 * and from it are truly asynchronous, and kernels can read and write it directly through {@link #devicePointer()}
 * (JCCL keeps its abort word in such memory so the host can stop a stuck kernel).
 *
 * <p>Thread: the segment may be read and written from any thread; close once. Mirrors NCCL's host-pinned
 * allocations (ncclCudaHostCalloc) used for the abort flag and proxy FIFOs.
 */
public final class PinnedBuffer implements AutoCloseable {
    private final CudaDevice device;
    private final MemorySegment segment;
    private final long devicePointer;
    private boolean closed;

    private PinnedBuffer(CudaDevice device, MemorySegment segment, long devicePointer) {
        this.device = device;
        this.segment = segment;
        this.devicePointer = devicePointer;
    }

    /** Allocates {@code sizeBytes} of pinned, device-mapped host memory, zero-filled. */
    public static PinnedBuffer allocate(CudaDevice device, long sizeBytes) {
        Objects.requireNonNull(device, "device");
        if (sizeBytes <= 0) {
            throw new JcclException(Result.INVALID_ARGUMENT, "pinned buffer size must be > 0, got " + sizeBytes);
        }
        device.makeCurrent();
        MemorySegment seg = CuMemory.hostAlloc(sizeBytes, CuMemory.HOST_ALLOC_PORTABLE | CuMemory.HOST_ALLOC_DEVICEMAP);
        seg.fill((byte) 0);
        return new PinnedBuffer(device, seg, CuMemory.hostDevicePointer(seg));
    }

    /** The host view of the memory. */
    public MemorySegment segment() {
        checkOpen();
        return segment;
    }

    /** The address kernels use for this memory. */
    public long devicePointer() {
        checkOpen();
        return devicePointer;
    }

    public long sizeBytes() {
        return segment.byteSize();
    }

    /** Frees the memory. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        device.makeCurrent();
        CuMemory.hostFree(segment);
    }

    private void checkOpen() {
        if (closed) {
            throw new JcclException(Result.INVALID_USAGE, "pinned buffer of " + segment.byteSize()
                    + " bytes is closed");
        }
    }
}
