package io.jccl;

/**
 * The memory one rank of a communicator holds, by kind, in bytes (NCCL's {@code ncclCommMemStats}). Every figure is
 * the sum of what the communicator's allocation sites actually allocated and have not freed yet: a connector's FIFO
 * when it is created, a shared-memory file when it is mapped, a GPU area when {@code cuMemAlloc} returns. Memory the
 * application owns (buffers from {@link Communicator#allocate}, its own device buffers and windows) is not counted,
 * nor memory a network plugin keeps to itself.
 *
 * @param hostBytes       native host memory of this rank: network FIFOs, the staging lines of the LL protocols,
 *                        scratch buffers, control words
 * @param sharedBytes     shared-memory files this rank created (in {@code /dev/shm}): the receiving FIFOs of its
 *                        shared-memory connectors and its part of the shared area
 * @param peerMappedBytes peers' memory mapped into this rank: their shared-memory files, CUDA IPC imports of their
 *                        GPU areas. It belongs to the peers (counted there too) and is not in {@link #totalBytes()}
 * @param pinnedHostBytes page-locked host memory registered with CUDA (GPU communicators: the abort area, the FIFOs
 *                        to ranks of other hosts); 0 for a host communicator
 * @param deviceBytes     GPU memory this rank allocated (its collective area: signals, LL and push areas, channel
 *                        FIFOs); 0 for a host communicator
 * @param suspendedBytes  while {@link #suspended()}: the bytes of this rank's own memory that
 *                        {@link Communicator#suspend()} released and {@link Communicator#resume()} takes back; else 0
 * @param suspended       whether the communicator is suspended
 */
public record MemoryStats(long hostBytes, long sharedBytes, long peerMappedBytes, long pinnedHostBytes,
                          long deviceBytes, long suspendedBytes, boolean suspended) {
    /**
     * This rank's own memory: host, shared, pinned and device bytes (peers' mapped memory excluded).
     *
     * @return the bytes
     */
    public long totalBytes() {
        return hostBytes + sharedBytes + pinnedHostBytes + deviceBytes;
    }

    /**
     * "host 1.2 MiB, shared 8.1 MiB, peer-mapped 8.1 MiB, pinned 0 B, device 0 B" and, when suspended,
     * "; suspended (9.3 MiB released)".
     *
     * @return a one-line summary
     */
    public String describe() {
        return "host " + size(hostBytes) + ", shared " + size(sharedBytes) + ", peer-mapped " + size(peerMappedBytes)
                + ", pinned " + size(pinnedHostBytes) + ", device " + size(deviceBytes)
                + (suspended ? "; suspended (" + size(suspendedBytes) + " released)" : "");
    }

    /**
     * {@code bytes} in B, KiB, MiB or GiB with one decimal.
     *
     * @param bytes a byte count
     * @return e.g. "12.5 MiB"
     */
    public static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(java.util.Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
