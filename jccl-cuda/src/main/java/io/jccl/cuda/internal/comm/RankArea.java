package io.jccl.cuda.internal.comm;

import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.DeviceBuffer;

/**
 * One rank's collective memory on its GPU: a single device allocation laid out by {@link AreaLayout}, with the
 * parts that hold counters zeroed once at creation (they are never reset afterwards: every kernel advances them,
 * so CUDA graph replays stay consistent). Peers reach it through peer pointers (one process) or its CUDA IPC
 * handle (one process per GPU).
 *
 * <p>Thread: created and closed by the communicator's owner. Mirrors NCCL's per-peer connection buffers
 * (transport/p2p.cc) and its device-side channel state.
 */
final class RankArea implements AutoCloseable {
    private final AreaLayout layout;
    private final DeviceBuffer buffer;

    private RankArea(AreaLayout layout, DeviceBuffer buffer) {
        this.layout = layout;
        this.buffer = buffer;
    }

    /** Allocates and zeroes the counters of a rank's area on {@code device}. */
    public static RankArea allocate(CudaDevice device, AreaLayout layout) {
        DeviceBuffer b = DeviceBuffer.allocate(device, layout.totalBytes());
        try {
            long[] z = layout.zeroRanges();
            for (int i = 0; i < z.length; i += 2) {
                if (z[i + 1] > 0) {
                    b.slice(z[i], z[i + 1]).zero();
                }
            }
        } catch (RuntimeException e) {
            b.close();
            throw e;
        }
        return new RankArea(layout, b);
    }

    public AreaLayout layout() {
        return layout;
    }

    /** The allocation's device address. */
    public long base() {
        return buffer.address();
    }

    public long sizeBytes() {
        return buffer.sizeBytes();
    }

    /** The 64-byte CUDA IPC handle of the allocation. */
    public byte[] ipcHandle() {
        return buffer.exportIpcHandle();
    }

    /** The whole area as a buffer (tests read counters through it). */
    public DeviceBuffer buffer() {
        return buffer;
    }

    @Override
    public void close() {
        buffer.close();
    }
}
