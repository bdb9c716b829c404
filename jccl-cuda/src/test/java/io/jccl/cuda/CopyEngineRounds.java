package io.jccl.cuda;

import io.jccl.DataType;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * One rank's side of the copy-engine collective test: per round an allGather into window block 0, a broadcast from
 * rank 1 (the last rank) into block 1 and an allToAll into block 2 (each block n·count int32), every element checked
 * against values that change each round; then an allGather into memory outside any window, which the kernels run.
 * Returns null, or what came back wrong.
 */
public final class CopyEngineRounds {
    private CopyEngineRounds() {
    }

    static int value(int rank, int round, long i) {
        return (int) (rank * 1_000_003L + round * 7_919L + i);
    }

    /** Runs {@code rounds} rounds of blocks of {@code count} int32 per rank; null when every element was right. */
    public static String run(GpuCommunicator g, GpuWindow w, int count, int rounds) {
        int n = g.size();
        int r = g.rank();
        long block = (long) n * count * 4;
        try (Arena arena = Arena.ofConfined();
             CudaStream s = CudaStream.create(g.device());
             DeviceBuffer send = DeviceBuffer.allocate(g.device(), block);
             DeviceBuffer plain = DeviceBuffer.allocate(g.device(), block)) {
            MemorySegment h = arena.allocate(block, 16);
            for (int round = 0; round < rounds; round++) {
                int k = round;
                for (long i = 0; i < (long) n * count; i++) {
                    h.setAtIndex(JAVA_INT, i, value(r, k, i));
                }
                send.copyFrom(h);
                g.allGather(send, w.buffer().slice(0, block), count, DataType.INT32, s);
                g.broadcast(send, w.buffer().slice(block, (long) count * 4), count, DataType.INT32, n - 1, s);
                g.allToAll(send, w.buffer().slice(2 * block, block), count, DataType.INT32, s);
                s.synchronize();
                if (g.asyncError() != null) {
                    return "rank " + r + ": " + g.asyncError().getMessage();
                }
                // the last call first: its data is the last to arrive
                String bad = check(w.buffer().slice(2 * block, block), h, n * (long) count,
                        i -> value((int) (i / count), k, (long) r * count + i % count), "allToAll", r, k);
                bad = bad != null ? bad : check(w.buffer().slice(block, (long) count * 4), h, count,
                        i -> value(n - 1, k, i), "broadcast", r, k);
                bad = bad != null ? bad : check(w.buffer().slice(0, block), h, n * (long) count,
                        i -> value((int) (i / count), k, i % count), "allGather", r, k);
                if (bad != null) {
                    return bad;
                }
            }
            long before = w.copyEngineCalls();
            g.allGather(send, plain, count, DataType.INT32, s);
            s.synchronize();
            if (w.copyEngineCalls() != before) {
                return "rank " + r + ": an allGather outside the window ran on the copy engines";
            }
            return null;
        }
    }

    private static String check(DeviceBuffer got, MemorySegment h, long ints, java.util.function.LongUnaryOperator want,
                                String what, int r, int k) {
        MemorySegment dst = h.asSlice(0, ints * 4);
        got.slice(0, ints * 4).copyTo(dst);
        for (long i = 0; i < ints; i++) {
            if (dst.getAtIndex(JAVA_INT, i) != (int) want.applyAsLong(i)) {
                return "rank " + r + " round " + k + " " + what + " element " + i + ": " + dst.getAtIndex(JAVA_INT, i)
                        + " instead of " + (int) want.applyAsLong(i);
            }
        }
        return null;
    }
}
