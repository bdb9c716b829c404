package io.jccl.cuda.internal.comm;

import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.internal.enqueue.KernelArgs;

import java.util.ArrayList;
import java.util.List;

/**
 * Every rank's area base address as one rank's GPU reaches it: its own allocation, peers' allocations directly
 * (one process, peer access enabled) or through CUDA IPC mappings (one process per GPU), which this object owns
 * and unmaps on {@link #close()}. Writes the kernels' pointer tables. A communicator across hosts has no peer
 * areas (base 0: their signal, LL and push entries are null, which the planner never lets a kernel use) and its
 * connection areas elsewhere ({@link NetAreas}: its own and mirrors of the peers' in pinned host memory).
 *
 * <p>Thread: the communicator's owner. Mirrors NCCL's peer pointer exchange in p2pSendConnect/p2pRecvConnect.
 */
public final class PeerAreas implements AutoCloseable {
    private final long[] bases;
    /** Each rank's connection area, when not inside its area (null: at connOffset of the area). */
    private final long[] connBases;
    private final List<DeviceBuffer> mappings;

    public PeerAreas(long[] bases, List<DeviceBuffer> mappings) {
        this(bases, null, mappings);
    }

    /** With every rank's connection area at {@code connBases} (null: inside the areas). */
    public PeerAreas(long[] bases, long[] connBases, List<DeviceBuffer> mappings) {
        this.bases = bases.clone();
        this.connBases = connBases == null ? null : connBases.clone();
        this.mappings = new ArrayList<>(mappings);
    }

    /** Rank {@code r}'s area base address on this GPU. */
    public long base(int r) {
        return bases[r];
    }

    public int size() {
        return bases.length;
    }

    /** Writes the sig/ll/push/conn tables of {@code args}. */
    public void writeTables(KernelArgs args, AreaLayout layout) {
        for (int r = 0; r < bases.length; r++) {
            long b = bases[r];
            long conn = connBases != null ? connBases[r] : b + layout.connOffset();
            if (b == 0) {
                args.setAreas(r, 0, 0, 0, conn);
            } else {
                args.setAreas(r, b + layout.signalsOffset(), b + layout.llOffset(), b + layout.pushOffset(), conn);
            }
        }
    }

    /** Unmaps the IPC mappings (the peers' own memory stays theirs). */
    @Override
    public void close() {
        RuntimeException first = null;
        for (DeviceBuffer m : mappings) {
            try {
                m.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        mappings.clear();
        if (first != null) {
            throw first;
        }
    }
}
