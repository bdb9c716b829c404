package io.jccl.tools.perf.gpu;

import io.jccl.tools.perf.Registration;

import java.lang.foreign.MemorySegment;

/**
 * One perf buffer registered with an NCCL communicator, as nccl-tests makes them: {@code ncclMemAlloc}'d memory
 * registered with {@code ncclCommRegister} ({@code -R 1}) or {@code ncclCommWindowRegister} with
 * {@code NCCL_WIN_COLL_SYMMETRIC} ({@code -R 2}); {@link #close()} deregisters, then frees, each once. A failed
 * registration frees the memory before it throws.
 *
 * <p>Thread: the rank's thread (window registration is collective: every rank registers its buffer). Mirrors
 * nccl-tests' AllocateBuffs plus its register and deregister loops.
 */
final class NcclRegisteredMemory implements AutoCloseable {
    private final NcclRegistration nccl;
    private final MemorySegment comm;
    private final Registration mode;
    private final long address;
    private final long bytes;
    private final MemorySegment handle;
    private boolean closed;

    private NcclRegisteredMemory(NcclRegistration nccl, MemorySegment comm, Registration mode, long address,
                                 long bytes, MemorySegment handle) {
        this.nccl = nccl;
        this.comm = comm;
        this.mode = mode;
        this.address = address;
        this.bytes = bytes;
        this.handle = handle;
    }

    /** Allocates {@code bytes} on the current GPU and registers them with {@code comm} as {@code mode} says. */
    static NcclRegisteredMemory open(NcclRegistration nccl, MemorySegment comm, long bytes, Registration mode) {
        if (mode == Registration.NONE) {
            throw new IllegalArgumentException("-R 0 registers nothing");
        }
        nccl.require(mode);
        long address = nccl.memAlloc(bytes);
        try {
            MemorySegment handle = mode == Registration.WINDOWS
                    ? nccl.commWindowRegister(comm, address, bytes, NcclRegistration.WIN_COLL_SYMMETRIC)
                    : nccl.commRegister(comm, address, bytes);
            return new NcclRegisteredMemory(nccl, comm, mode, address, bytes, handle);
        } catch (RuntimeException e) {
            try {
                nccl.memFree(address);
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** The device address of the memory. */
    long address() {
        return address;
    }

    long sizeBytes() {
        return bytes;
    }

    /** Deregisters (ncclCommWindowDeregister or ncclCommDeregister), then ncclMemFree; the second call does nothing. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (mode == Registration.WINDOWS) {
                nccl.commWindowDeregister(comm, handle);
            } else {
                nccl.commDeregister(comm, handle);
            }
        } finally {
            nccl.memFree(address);
        }
    }
}
