package io.jccl.examples;

import io.jccl.Communicator;
import io.jccl.DataType;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * NCCL's broadcast example (examples/03_collectives): the root fills N doubles with {@code i * 0.5}, every other
 * rank starts with zeros, and after {@code broadcast} every rank checks it holds the root's values.
 *
 * <pre>{@code ./jccl run -np 3 io.jccl.examples.BroadcastExample [N] [ROOT]}</pre>
 */
public final class BroadcastExample {
    private BroadcastExample() {
    }

    public static void main(String[] args) {
        int n = Examples.intArg(args, 0, 100_000);
        int root = Examples.intArg(args, 1, 0);
        Examples.main("BroadcastExample", (comm, out) -> run(comm, out, n, root));
    }

    /** The example on {@code comm}; returns true when this rank received the root's data. */
    public static boolean run(Communicator comm, PrintStream out, int count, int root) {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate((long) count * Double.BYTES, 64);
            if (comm.rank() == root) {
                for (long i = 0; i < count; i++) {
                    buf.setAtIndex(ValueLayout.JAVA_DOUBLE, i, i * 0.5);
                }
            }
            comm.broadcast(buf, buf, count, DataType.FLOAT64, root);
            long wrong = 0;
            for (long i = 0; i < count; i++) {
                if (buf.getAtIndex(ValueLayout.JAVA_DOUBLE, i) != i * 0.5) {
                    wrong++;
                }
            }
            out.printf("Rank %d received %d doubles from root %d: %s%n", comm.rank(), count, root,
                    wrong == 0 ? "correct" : wrong + " wrong");
            return wrong == 0;
        }
    }
}
