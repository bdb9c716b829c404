package io.jccl.internal.base;

import io.jccl.MemoryStats;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The bytes one rank of a communicator holds, by {@link Kind}: every allocation site adds what it allocated and
 * subtracts it again when it frees, so {@link #stats} reports what is allocated, never an estimate. Also the
 * suspended state and what the last suspend released.
 *
 * <p>Any thread (atomic counters; allocation sites run at setup, never on the data path). Mirrors: the counters of
 * NCCL's ncclMemManager (totalPersist, totalScratch, cpuBackupUsage) that ncclCommMemStats reads.
 */
public final class MemoryLedger {
    /** What kind of memory an allocation is. */
    public enum Kind {
        /** Native host memory. */
        HOST,
        /** A shared-memory file this rank created. */
        SHARED,
        /** A peer's memory mapped here: its shared-memory file, a CUDA IPC import. */
        PEER_MAPPED,
        /** Page-locked host memory registered with CUDA. */
        PINNED,
        /** GPU memory. */
        DEVICE
    }

    private final AtomicLongArray bytes = new AtomicLongArray(Kind.values().length);
    private volatile boolean suspended;
    private volatile long suspendedBytes;

    /** Counts {@code n} bytes of {@code kind} allocated. */
    public void add(Kind kind, long n) {
        bytes.addAndGet(kind.ordinal(), n);
    }

    /** Counts {@code n} bytes of {@code kind} freed. */
    public void remove(Kind kind, long n) {
        bytes.addAndGet(kind.ordinal(), -n);
    }

    /** Bytes of {@code kind} allocated now. */
    public long bytes(Kind kind) {
        return bytes.get(kind.ordinal());
    }

    /** This rank's own memory now: everything but {@link Kind#PEER_MAPPED}. */
    public long ownBytes() {
        return bytes(Kind.HOST) + bytes(Kind.SHARED) + bytes(Kind.PINNED) + bytes(Kind.DEVICE);
    }

    /** Marks the communicator suspended, having released {@code released} bytes of its own memory. */
    public void suspended(long released) {
        suspendedBytes = released;
        suspended = true;
    }

    /** Marks the communicator resumed. */
    public void resumed() {
        suspended = false;
        suspendedBytes = 0;
    }

    public boolean isSuspended() {
        return suspended;
    }

    /** The counts as the public record. */
    public MemoryStats stats() {
        return new MemoryStats(bytes(Kind.HOST), bytes(Kind.SHARED), bytes(Kind.PEER_MAPPED), bytes(Kind.PINNED),
                bytes(Kind.DEVICE), suspended ? suspendedBytes : 0, suspended);
    }

    /** {@code a} and {@code b} of one rank added (a GPU communicator's and its host communicator's). */
    public static MemoryStats sum(MemoryStats a, MemoryStats b) {
        return new MemoryStats(a.hostBytes() + b.hostBytes(), a.sharedBytes() + b.sharedBytes(),
                a.peerMappedBytes() + b.peerMappedBytes(), a.pinnedHostBytes() + b.pinnedHostBytes(),
                a.deviceBytes() + b.deviceBytes(), a.suspendedBytes() + b.suspendedBytes(),
                a.suspended() || b.suspended());
    }
}
