package io.jccl.cuda.internal.comm;

import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.PinnedBuffer;
import io.jccl.cuda.internal.driver.CuMemory;
import io.jccl.internal.base.MemoryLedger;

import java.lang.foreign.MemorySegment;

/**
 * One connection area of the GPU connectors across hosts: pinned host memory mapped into the GPU, or, with GPUDirect
 * RDMA, device memory the CPU can address (the proxy thread reads and writes its counters, the plugin its slots).
 * Zero-filled, as the ConnCtl lines must start; counted on the ledger as pinned or device memory.
 *
 * <p>Owned by: the communicator's owner thread (allocate, close); the proxy thread and the kernels use the memory.
 * Mirrors: net.cc's host-memory and device-memory banks of a connection's map (NCCL_NET_MAP_HOSTMEM / DEVMEM).
 */
final class NetMemory implements AutoCloseable {
    private final PinnedBuffer pinned;
    private final DeviceBuffer device;
    private final MemorySegment segment;
    private final long sizeBytes;

    private NetMemory(PinnedBuffer pinned, DeviceBuffer device, MemorySegment segment, long sizeBytes) {
        this.pinned = pinned;
        this.device = device;
        this.segment = segment;
        this.sizeBytes = sizeBytes;
    }

    /** {@code bytes} of pinned host memory, or of device memory when {@code gdr}; counted on {@code ledger}. */
    static NetMemory allocate(CudaDevice dev, long bytes, boolean gdr, MemoryLedger ledger) {
        NetMemory m;
        if (gdr) {
            DeviceBuffer b = DeviceBuffer.allocate(dev, bytes);
            MemorySegment seg = CuMemory.hostView(b.address(), bytes);
            if (seg == null) {
                b.close();
                throw new IllegalStateException("device memory without a CPU address for GPUDirect RDMA");
            }
            seg.fill((byte) 0);
            m = new NetMemory(null, b, seg, bytes);
        } else {
            PinnedBuffer p = PinnedBuffer.allocate(dev, bytes);
            m = new NetMemory(p, null, p.segment(), p.sizeBytes());
        }
        ledger.add(m.kind(), m.sizeBytes);
        return m;
    }

    /**
     * True when device memory of {@code dev} has a CPU address (CU_POINTER_ATTRIBUTE_HOST_POINTER on a small probe
     * allocation, as NCCL probes GDR with one): on the CPU emulator, not on a GPU without GDRCopy.
     */
    static boolean deviceMemoryHostAddressable(CudaDevice dev) {
        try (DeviceBuffer probe = DeviceBuffer.allocate(dev, 4096)) {
            return CuMemory.hostPointer(probe.address()) != 0;
        }
    }

    MemorySegment segment() {
        return segment;
    }

    /** The address the kernels use. */
    long devicePointer() {
        return device != null ? device.address() : pinned.devicePointer();
    }

    long sizeBytes() {
        return sizeBytes;
    }

    /** True for device memory (GPUDirect RDMA). */
    boolean onDevice() {
        return device != null;
    }

    private MemoryLedger.Kind kind() {
        return device != null ? MemoryLedger.Kind.DEVICE : MemoryLedger.Kind.PINNED;
    }

    /** Frees the memory and uncounts it from {@code ledger}. */
    void free(MemoryLedger ledger) {
        close();
        ledger.remove(kind(), sizeBytes);
    }

    @Override
    public void close() {
        if (device != null) {
            device.close();
        } else {
            pinned.close();
        }
    }
}
