package io.jccl.examples;

import io.jccl.Communicator;
import io.jccl.RedOp;

import java.io.PrintStream;

/**
 * NCCL's communicator-splitting example ({@code ncclCommSplit}): the world splits by parity of the rank
 * ({@code color = rank % 2}, {@code key = rank}); each half allReduces its members' world ranks on its own
 * communicator, then the world allReduces again to show both communicators stay usable side by side. Every rank
 * checks the sum against the one it computes from the world size.
 *
 * <pre>{@code ./jccl run -np 4 io.jccl.examples.SplitExample}</pre>
 */
public final class SplitExample {
    private SplitExample() {
    }

    public static void main(String[] args) {
        Examples.main("SplitExample", SplitExample::run);
    }

    /** The example on {@code world}; returns true when both sums are right. */
    public static boolean run(Communicator world, PrintStream out) {
        int rank = world.rank();
        int color = rank % 2;
        try (Communicator half = world.split(color, rank)) {
            long[] mine = {rank};
            long[] sum = new long[1];
            half.allReduce(mine, sum, RedOp.SUM);
            long expectedHalf = 0;
            int members = 0;
            for (int r = color; r < world.size(); r += 2) {
                expectedHalf += r;
                members++;
            }
            long[] worldSum = new long[1];
            world.allReduce(mine, worldSum, RedOp.SUM);
            long expectedWorld = (long) world.size() * (world.size() - 1) / 2;
            boolean ok = sum[0] == expectedHalf && half.size() == members && half.rank() == rank / 2
                    && worldSum[0] == expectedWorld;
            out.printf("World rank %d is rank %d of %d in the %s communicator: sum %d, world sum %d (%s)%n", rank,
                    half.rank(), half.size(), color == 0 ? "even" : "odd", sum[0], worldSum[0],
                    ok ? "correct" : "expected " + expectedHalf + " and " + expectedWorld);
            return ok;
        }
    }
}
