package io.jccl.tools.perf.gpu;

import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.PinnedBuffer;
import io.jccl.tools.perf.PerfBuffer;

import java.lang.foreign.MemorySegment;

/**
 * A perf buffer in GPU memory with a pinned host mirror of the same size: the checks fill and read the mirror, and
 * {@link #copyToDevice}/{@link #copyToHost} move byte ranges (synchronously, on the device's copy stream). Zeroed
 * on both sides when allocated. Owned by a {@link GpuSession}; both GPU libraries use the same buffers.
 */
final class GpuBuffer implements PerfBuffer, AutoCloseable {
    private final DeviceBuffer device;
    private final PinnedBuffer host;

    GpuBuffer(DeviceBuffer device, PinnedBuffer host) {
        this.device = device;
        this.host = host;
    }

    static GpuBuffer allocate(io.jccl.cuda.CudaDevice dev, long bytes) {
        DeviceBuffer d = DeviceBuffer.allocate(dev, Math.max(bytes, 16));
        try {
            d.zero();
            return new GpuBuffer(d, PinnedBuffer.allocate(dev, Math.max(bytes, 16)));
        } catch (RuntimeException e) {
            d.close();
            throw e;
        }
    }

    /** The device memory. */
    DeviceBuffer device() {
        return device;
    }

    /** A view of [offset, offset + bytes) of the device memory. */
    DeviceBuffer slice(long offset, long bytes) {
        return device.slice(offset, bytes);
    }

    @Override
    public long sizeBytes() {
        return device.sizeBytes();
    }

    @Override
    public MemorySegment host() {
        return host.segment();
    }

    @Override
    public void copyToDevice(long offsetBytes, long lengthBytes) {
        if (lengthBytes > 0) {
            device.slice(offsetBytes, lengthBytes).copyFrom(host.segment().asSlice(offsetBytes, lengthBytes));
        }
    }

    @Override
    public void copyToHost(long offsetBytes, long lengthBytes) {
        if (lengthBytes > 0) {
            device.slice(offsetBytes, lengthBytes).copyTo(host.segment().asSlice(offsetBytes, lengthBytes));
        }
    }

    @Override
    public void close() {
        device.close();
        host.close();
    }
}
