package io.jccl.tools.perf;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.RedOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The perf backend for host memory: buffers are native segments of a shared arena (the communicator's worker
 * threads read and write them), calls go to a {@link Communicator} and complete before they return, and the
 * harness's own statistics travel over the same communicator. Owned by the rank's thread; {@link #abort()} may come
 * from a watchdog. The JCCL counterpart of nccl-tests' NCCL + CUDA runtime calls.
 */
public final class HostBackend implements PerfBackend {
    /** Bytes per rank line exchanged by {@link #gatherLines}. */
    static final int LINE_BYTES = 512;

    private final Communicator comm;
    private final int deviceIndex;
    private final Arena arena = Arena.ofShared();
    private final boolean registered;
    private final MemorySegment statD = arena.allocate(ValueLayout.JAVA_DOUBLE);
    private final MemorySegment statL = arena.allocate(ValueLayout.JAVA_LONG);

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
        MemorySegment seg = registered ? comm.allocate(Math.max(sizeBytes, 1)) : arena.allocate(Math.max(sizeBytes, 1), 4096);
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
        comm.barrier();
    }

    @Override
    public double reduceStat(double value, StatMode mode) {
        statD.set(ValueLayout.JAVA_DOUBLE, 0, value);
        switch (mode) {
            case RANK0 -> comm.broadcast(statD, statD, 1, DataType.FLOAT64, 0);
            case AVG -> comm.allReduce(statD, statD, 1, DataType.FLOAT64, RedOp.SUM);
            case MIN -> comm.allReduce(statD, statD, 1, DataType.FLOAT64, RedOp.MIN);
            case MAX -> comm.allReduce(statD, statD, 1, DataType.FLOAT64, RedOp.MAX);
        }
        double v = statD.get(ValueLayout.JAVA_DOUBLE, 0);
        return mode == StatMode.AVG ? v / comm.size() : v;
    }

    @Override
    public long sumLong(long value) {
        statL.set(ValueLayout.JAVA_LONG, 0, value);
        comm.allReduce(statL, statL, 1, DataType.INT64, RedOp.SUM);
        return statL.get(ValueLayout.JAVA_LONG, 0);
    }

    @Override
    public List<String> gatherLines(String line) {
        int n = comm.size();
        try (Arena a = Arena.ofShared()) {
            MemorySegment mine = a.allocate(LINE_BYTES);
            byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            MemorySegment.copy(bytes, 0, mine, ValueLayout.JAVA_BYTE, 0, Math.min(bytes.length, LINE_BYTES - 1));
            MemorySegment all = a.allocate((long) LINE_BYTES * n);
            comm.allGather(mine, all, LINE_BYTES, DataType.UINT8);
            List<String> out = new ArrayList<>(n);
            for (int r = 0; r < n; r++) {
                out.add(all.asSlice((long) r * LINE_BYTES, LINE_BYTES).getString(0, StandardCharsets.UTF_8));
            }
            return out;
        }
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
