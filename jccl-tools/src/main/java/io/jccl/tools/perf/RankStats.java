package io.jccl.tools.perf;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.RedOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What every perf backend does between ranks on a host communicator, whatever it measures: barrier, a timing
 * statistic across ranks, a sum of counts, and gathering every rank's report line.
 *
 * <p>Owned by: the rank's perf thread. Mirrors: nccl-tests' MPI-side helpers (Barrier, the time allreduce).
 */
public final class RankStats {
    /** Longest line a rank contributes to {@link #gatherLines} (longer ones are cut). */
    public static final int LINE_BYTES = 512;

    private final Communicator comm;
    private final MemorySegment statD;
    private final MemorySegment statL;

    /** @param arena where the two scalar buffers live (the backend's, closed with it) */
    public RankStats(Communicator comm, Arena arena) {
        this.comm = comm;
        this.statD = arena.allocate(ValueLayout.JAVA_DOUBLE);
        this.statL = arena.allocate(ValueLayout.JAVA_LONG);
    }

    /** See {@link PerfBackend#barrier()}. */
    public void barrier() {
        comm.barrier();
    }

    /** See {@link PerfBackend#reduceStat}. */
    public double reduceStat(double value, PerfBackend.StatMode mode) {
        statD.set(ValueLayout.JAVA_DOUBLE, 0, value);
        switch (mode) {
            case RANK0 -> comm.broadcast(statD, statD, 1, DataType.FLOAT64, 0);
            case AVG -> comm.allReduce(statD, statD, 1, DataType.FLOAT64, RedOp.SUM);
            case MIN -> comm.allReduce(statD, statD, 1, DataType.FLOAT64, RedOp.MIN);
            case MAX -> comm.allReduce(statD, statD, 1, DataType.FLOAT64, RedOp.MAX);
        }
        double v = statD.get(ValueLayout.JAVA_DOUBLE, 0);
        return mode == PerfBackend.StatMode.AVG ? v / comm.size() : v;
    }

    /** See {@link PerfBackend#sumLong}. */
    public long sumLong(long value) {
        statL.set(ValueLayout.JAVA_LONG, 0, value);
        comm.allReduce(statL, statL, 1, DataType.INT64, RedOp.SUM);
        return statL.get(ValueLayout.JAVA_LONG, 0);
    }

    /** See {@link PerfBackend#gatherLines}. */
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
}
