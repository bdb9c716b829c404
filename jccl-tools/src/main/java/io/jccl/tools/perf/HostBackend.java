package io.jccl.tools.perf;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.RedOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The perf backend for host memory: buffers are native segments of a shared arena (the communicator's worker
 * threads read and write them), calls go to a {@link Communicator} and complete before they return, and the
 * harness's own statistics travel over the same communicator. Owned by the rank's thread; {@link #abort()} may come
 * from a watchdog. The JCCL counterpart of nccl-tests' NCCL + CUDA runtime calls.
 */
public final class HostBackend implements PerfBackend {
    /** Bytes per rank line exchanged by {@link #gatherLines}. */

    private final Communicator comm;
    private final int deviceIndex;
    private final Arena arena = Arena.ofShared();
    private final boolean registered;
    private final RankStats stats;

    /**
     * @param deviceIndex the index shown in the rank line (the local rank)
     */
    public HostBackend(Communicator comm, int deviceIndex) {
        this(comm, deviceIndex, false);
    }

    /**
     * @param registered allocate the buffers with {@link Communicator#allocate} (shared memory every same-host rank
     *                   maps: nccl-tests' {@code -R}); the allocation is collective, which perf's start-up is
     */
    public HostBackend(Communicator comm, int deviceIndex, boolean registered) {
        this.comm = comm;
        this.stats = new RankStats(comm, arena);
        this.deviceIndex = deviceIndex;
        this.registered = registered;
    }

    @Override
    public int rank() {
        return comm.rank();
    }

    @Override
    public int nRanks() {
        return comm.size();
    }

    @Override
    public String deviceBusId() {
        return "host";
    }

    @Override
    public String deviceName() {
        return HostInfo.cpuModel();
    }

    @Override
    public int deviceIndex() {
        return deviceIndex;
    }

    @Override
    public PerfBuffer allocate(long sizeBytes) {
        MemorySegment seg = registered ? comm.allocate(Math.max(sizeBytes, 1)) : arena.allocate(Math.max(sizeBytes, 1),
                4096);
        return new PerfBuffer() {
            @Override
            public long sizeBytes() {
                return sizeBytes;
            }

            @Override
            public MemorySegment host() {
                return seg;
            }
        };
    }

    @Override
    public PreparedCall prepare(CollectiveCall c) {
        MemorySegment s = c.send().host().asSlice(c.sendOffsetBytes(), c.sendBytes());
        MemorySegment r = c.recv().host().asSlice(c.recvOffsetBytes(), c.recvBytes());
        long n = c.count();
        DataType t = c.type();
        RedOp op = c.op();
        int root = c.root();
        return switch (c.coll()) {
            case ALL_REDUCE -> () -> comm.allReduce(s, r, n, t, op);
            case ALL_GATHER -> () -> comm.allGather(s, r, n, t);
            case REDUCE_SCATTER -> () -> comm.reduceScatter(s, r, n, t, op);
            case BROADCAST -> () -> comm.broadcast(s, r, n, t, root);
            case REDUCE -> () -> comm.reduce(s, r, n, t, op, root);
            case ALL_TO_ALL -> () -> comm.allToAll(s, r, n, t);
            case GATHER -> () -> comm.gather(s, r, n, t, root);
            case SCATTER -> () -> comm.scatter(s, r, n, t, root);
            case SEND_RECV -> {
                int size = comm.size();
                int to = (comm.rank() + 1) % size;
                int from = (comm.rank() - 1 + size) % size;
                yield () -> {
                    Jccl.groupStart();
                    try {
                        comm.send(s, n, t, to);
                        comm.recv(r, n, t, from);
                    } finally {
                        Jccl.groupEnd();
                    }
                };
            }
        };
    }

    @Override
    public void groupStart() {
        Jccl.groupStart();
    }

    @Override
    public void groupEnd() {
        Jccl.groupEnd();
    }

    @Override
    public void synchronize() {
        // host calls complete before they return
    }

    @Override
    public void barrier() {
        stats.barrier();
    }

    @Override
    public double reduceStat(double value, StatMode mode) {
        return stats.reduceStat(value, mode);
    }

    @Override
    public long sumLong(long value) {
        return stats.sumLong(value);
    }

    @Override
    public List<String> gatherLines(String line) {
        return stats.gatherLines(line);
    }

    @Override
    public void abort() {
        comm.abort();
    }

    @Override
    public void close() {
        try {
            comm.close();
        } finally {
            arena.close();
        }
    }
}
