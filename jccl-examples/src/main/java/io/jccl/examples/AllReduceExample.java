package io.jccl.examples;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.RedOp;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * NCCL's allReduce example (examples/03_collectives/01_allreduce) on host memory, one rank per process: every rank
 * fills a buffer of N floats (default 1M) with its rank, sums it over all ranks in place, and checks that every
 * element became 0 + 1 + ... + (n-1). Also shows the classic two-element sum of the one-device-per-process example:
 * {@code {rank, rank+1}} summed, printed as NCCL prints it.
 *
 * <pre>{@code ./jccl run -np 4 io.jccl.examples.AllReduceExample [N]}</pre>
 */
public final class AllReduceExample {
    private AllReduceExample() {
    }

    public static void main(String[] args) {
        int n = Examples.intArg(args, 0, 1 << 20);
        Examples.main("AllReduceExample", (comm, out) -> run(comm, out, n));
    }

    /** The example on {@code comm} with {@code count} floats; returns true when every sum is right. */
    public static boolean run(Communicator comm, PrintStream out, int count) {
        int rank = comm.rank();
        int size = comm.size();
        float[] pair = {rank, rank + 1};
        comm.allReduce(pair, RedOp.SUM);
        out.printf("Collective operation completed on rank %d%n", rank);
        float first = size * (size - 1) / 2f;
        boolean ok = report(out, rank, pair[0], first) & report(out, rank, pair[1], first + size);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate((long) count * Float.BYTES, 64);
            for (long i = 0; i < count; i++) {
                buf.setAtIndex(ValueLayout.JAVA_FLOAT, i, rank);
            }
            long t0 = System.nanoTime();
            comm.allReduce(buf, buf, count, DataType.FLOAT32, RedOp.SUM);
            double us = (System.nanoTime() - t0) / 1e3;
            long wrong = 0;
            for (long i = 0; i < count; i++) {
                if (buf.getAtIndex(ValueLayout.JAVA_FLOAT, i) != first) {
                    wrong++;
                }
            }
            out.printf("Rank %d: allReduce of %d floats over %d ranks took %.1f us, %d wrong elements%n", rank, count,
                    size, us, wrong);
            return ok && wrong == 0;
        }
    }

    private static boolean report(PrintStream out, int rank, float got, float expected) {
        if (got == expected) {
            out.printf("Device %d correctly received sum: %.0f%n", rank, got);
            return true;
        }
        out.printf("Device %d received incorrect result: %.0f (expected %.0f)%n", rank, got, expected);
        return false;
    }
}
