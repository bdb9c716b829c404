package io.jccl.tools.perf.gpu;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.GpuWindow;
import io.jccl.cuda.PinnedBuffer;
import io.jccl.tools.perf.Registration;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * One rank's perf buffers registered with one library ({@code -R 1/2}). JCCL: both buffers are the two halves of
 * one {@link GpuWindow} (send, then receive: the symmetric kernels need a call's buffers in one window), opened at
 * the first request; JCCL has no separate user-buffer registration, so {@code -R 1} makes windows too. NCCL: each
 * buffer is {@code ncclMemAlloc}'d and registered on its own ({@link NcclRegisteredMemory}). Each buffer has a
 * pinned host mirror for the checks. {@link #close()} is collective for windows: every rank's thread calls it.
 *
 * <p>Thread: the rank's thread. Mirrors nccl-tests' per-GPU buffer allocation and registration under {@code -R}.
 */
final class RegisteredBuffers {
    /** Window halves start on this boundary, so the receive half is as aligned as a fresh allocation. */
    private static final long ALIGN = 4096;

    private final GpuCommunicator comm;
    private final Registration mode;
    private final NcclRegistration nccl;
    private final MemorySegment ncclComm;
    private final List<GpuBuffer> buffers = new ArrayList<>();
    private final List<NcclRegisteredMemory> ncclMemory = new ArrayList<>();
    private GpuWindow window;
    private long half;

    private RegisteredBuffers(GpuCommunicator comm, Registration mode, NcclRegistration nccl, MemorySegment ncclComm) {
        this.comm = comm;
        this.mode = mode;
        this.nccl = nccl;
        this.ncclComm = ncclComm;
    }

    /** JCCL's buffers of {@code comm}'s rank: halves of one window. */
    static RegisteredBuffers jccl(GpuCommunicator comm, Registration mode) {
        return new RegisteredBuffers(comm, mode, null, null);
    }

    /** NCCL's buffers of {@code comm}'s rank, registered with {@code ncclComm} as {@code mode} says. */
    static RegisteredBuffers nccl(GpuCommunicator comm, Registration mode, NcclRegistration nccl,
                                  MemorySegment ncclComm) {
        return new RegisteredBuffers(comm, mode, nccl, ncclComm);
    }

    /** Buffer number {@code index} (0 send, 1 receive) of at least {@code bytes}, zeroed; collective for JCCL. */
    GpuBuffer buffer(int index, long bytes) {
        while (buffers.size() <= index) {
            buffers.add(null);
        }
        GpuBuffer b = buffers.get(index);
        if (b != null && b.sizeBytes() >= bytes) {
            return b;
        }
        if (b != null) {
            throw new JcclException(Result.INTERNAL_ERROR, "-R " + mode.code() + ": buffer " + index + " of "
                    + b.sizeBytes() + " bytes cannot grow to " + bytes + " (registered buffers are made once)");
        }
        CudaDevice dev = comm.device();
        long size = Math.max(bytes, 16);
        dev.makeCurrent();
        DeviceBuffer memory = nccl == null ? windowHalf(index, size) : ncclBuffer(dev, size);
        memory.zero();
        b = new GpuBuffer(memory, PinnedBuffer.allocate(dev, size));
        buffers.set(index, b);
        return b;
    }

    private DeviceBuffer windowHalf(int index, long size) {
        if (index > 1) {
            throw new JcclException(Result.INTERNAL_ERROR, "-R " + mode.code() + ": perf's window holds two "
                    + "buffers (send and receive), asked for buffer " + index);
        }
        if (window == null) {
            half = (size + ALIGN - 1) / ALIGN * ALIGN;
            window = comm.allocateWindow(2 * half);
        } else if (size > half) {
            throw new JcclException(Result.INTERNAL_ERROR, "-R " + mode.code() + ": buffer " + index + " of " + size
                    + " bytes does not fit its half of the window (" + half + " bytes)");
        }
        return window.buffer().slice(index * half, size);
    }

    private DeviceBuffer ncclBuffer(CudaDevice dev, long size) {
        NcclRegisteredMemory m = NcclRegisteredMemory.open(nccl, ncclComm, size, mode);
        ncclMemory.add(m);
        return DeviceBuffer.wrap(dev, m.address(), size);
    }

    /** The JCCL window the buffers lie in, or null (NCCL, or not opened yet). */
    GpuWindow window() {
        return window;
    }

    /**
     * Deregisters and frees everything: closes the window (collective: every rank's thread calls this after its
     * stream has drained) or each NCCL registration; then the host mirrors.
     */
    void close() {
        try {
            if (window != null) {
                window.close();
            }
            for (NcclRegisteredMemory m : ncclMemory) {
                m.close();
            }
        } finally {
            closeMirrors();
        }
    }

    /** Releases only the host mirrors and the views (the communicators' close releases windows and NCCL's memory). */
    void closeMirrors() {
        for (GpuBuffer b : buffers) {
            if (b != null) {
                b.close();
            }
        }
        buffers.clear();
    }
}
