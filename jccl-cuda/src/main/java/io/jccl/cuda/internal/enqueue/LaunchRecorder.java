package io.jccl.cuda.internal.enqueue;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.internal.profile.JfrGate;

/**
 * One rank's {@link GpuLaunchEvent}s: begins an event only while a flight recording runs (one volatile read
 * otherwise, no allocation) and fills and commits it after the launch.
 *
 * <p>Thread: the communicator's issuing thread. Mirrors NCCL's profiler hooks around its kernel launches.
 */
final class LaunchRecorder {
    private final String commId;
    private final int rank;
    private final int nRanks;
    private long launches;

    LaunchRecorder(String commId, int rank, int nRanks) {
        this.commId = commId;
        this.rank = rank;
        this.nRanks = nRanks;
    }

    /** A started event, or null while nothing records. */
    GpuLaunchEvent begin() {
        if (!JfrGate.on()) {
            return null;
        }
        GpuLaunchEvent e = new GpuLaunchEvent();
        e.begin();
        return e;
    }

    /**
     * Commits {@code e} (null: nothing records) for a launch of {@code coll} ({@code count} elements of {@code type},
     * null for byte counts; {@code root} -1 when none) with {@code algorithm} on {@code blocks} blocks.
     */
    void commit(GpuLaunchEvent e, Collective coll, long count, DataType type, long bytes, int root, String algorithm,
                int blocks, long chunkBytes) {
        launches++;
        if (e == null || !e.shouldCommit()) {
            return;
        }
        e.end();
        e.place(commId, rank, nRanks);
        e.seq = launches;
        e.collective = coll.ncclName();
        e.count = count;
        e.dataType = type == null ? "uint8" : type.ncclName();
        e.bytes = bytes;
        e.algorithm = algorithm;
        e.blocks = blocks;
        e.chunkBytes = chunkBytes;
        e.root = root;
        e.commit();
    }
}
