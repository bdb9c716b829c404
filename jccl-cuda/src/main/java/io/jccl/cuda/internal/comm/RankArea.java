package io.jccl.cuda.internal.comm;

import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.internal.base.MemoryLedger;

/**
 * One rank's collective memory on its GPU: a single device allocation laid out by {@link AreaLayout}, with the
 * parts that hold counters zeroed once at creation (they are never reset afterwards: every kernel advances them,
 * so CUDA graph replays stay consistent). Peers reach it through peer pointers (one process) or its CUDA IPC
 * handle (one process per GPU).
 *
 * Its bytes are counted on the rank's {@link MemoryLedger} from allocation to close.
 *
 * <p>Thread: created and closed by the communicator's owner. Mirrors NCCL's per-peer connection buffers
 * (transport/p2p.cc) and its device-side channel state.
 */
final class RankArea implements AutoCloseable {
    private final AreaLayout layout;
    private final DeviceBuffer buffer;
    private final MemoryLedger ledger;
    private boolean closed;

    private RankArea(AreaLayout layout, DeviceBuffer buffer, MemoryLedger ledger) {
        this.layout = layout;
        this.buffer = buffer;
        this.ledger = ledger;
    }

    /** Allocates and zeroes the counters of a rank's area on {@code device}, counted on {@code ledger}. */
    public static RankArea allocate(CudaDevice device, AreaLayout layout, MemoryLedger ledger) {
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
        ledger.add(MemoryLedger.Kind.DEVICE, b.sizeBytes());
        return new RankArea(layout, b, ledger);
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

    /** Frees the allocation (idempotent). */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        buffer.close();
        ledger.remove(MemoryLedger.Kind.DEVICE, buffer.sizeBytes());
    }
}
