package io.jccl.examples;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Group;
import io.jccl.Jccl;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * NCCL's point-to-point ring example (examples/02_point_to_point): every rank sends a buffer to the next rank and
 * receives one from the previous rank, the send and the receive inside one group so neither blocks the other.
 * The received buffer is passed on, so after n-1 steps every rank has seen every rank's data; the running sum
 * checks it.
 *
 * <pre>{@code ./jccl run -np 4 io.jccl.examples.RingExchangeExample [N]}</pre>
 */
public final class RingExchangeExample {
    private RingExchangeExample() {
    }

    public static void main(String[] args) {
        int n = Examples.intArg(args, 0, 4096);
        Examples.main("RingExchangeExample", (comm, out) -> run(comm, out, n));
    }

    /** The example on {@code comm}; returns true when every step delivered the expected rank's data. */
    @SuppressWarnings("try") // the resource is held for the scope, not used
    public static boolean run(Communicator comm, PrintStream out, int count) {
        int rank = comm.rank();
        int size = comm.size();
        int next = (rank + 1) % size;
        int prev = (rank - 1 + size) % size;
        boolean ok = true;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment send = arena.allocate((long) count * Integer.BYTES, 64);
            MemorySegment recv = arena.allocate((long) count * Integer.BYTES, 64);
            for (long i = 0; i < count; i++) {
                send.setAtIndex(ValueLayout.JAVA_INT, i, rank);
            }
            long sum = rank;
            for (int step = 1; step < size; step++) {
                try (Group g = Jccl.group()) {
                    comm.send(send, count, DataType.INT32, next);
                    comm.recv(recv, count, DataType.INT32, prev);
                }
                int from = (rank - step + size) % size;
                int got = recv.getAtIndex(ValueLayout.JAVA_INT, count - 1);
                boolean right = got == from && recv.getAtIndex(ValueLayout.JAVA_INT, 0) == from;
                ok &= right;
                out.printf("Rank %d step %d: received data of rank %d from rank %d: %s%n", rank, step, got, prev,
                        right ? "correct" : "WRONG (expected " + from + ")");
                sum += got;
                MemorySegment t = send;
                send = recv;
                recv = t;
            }
            long expected = (long) size * (size - 1) / 2;
            out.printf("Rank %d: sum of every rank's data %d (%s)%n", rank, sum, sum == expected ? "correct" : "WRONG");
            return ok && sum == expected;
        }
    }
}
