package io.jccl.examples;

import io.jccl.Communicator;
import io.jccl.MemoryStats;
import io.jccl.RedOp;

import java.io.PrintStream;
import java.util.Arrays;

/**
 * NCCL 2.29's {@code ncclCommSuspend} / {@code ncclCommResume} with {@code ncclCommMemStats}: every rank allReduces
 * {@code N} floats, prints the memory its communicator holds, suspends it (the memory of the data path goes back:
 * connector FIFOs, shared areas, scratch), prints what is left, resumes, and allReduces again. Every rank checks both
 * sums and that the communicator holds as much after the resume as before the suspend.
 *
 * <pre>{@code ./jccl run -np 2 io.jccl.examples.SuspendResumeExample}</pre>
 */
public final class SuspendResumeExample {
    private SuspendResumeExample() {
    }

    public static void main(String[] args) {
        int count = Examples.intArg(args, 0, 1 << 20);
        Examples.main("SuspendResumeExample", (comm, out) -> run(comm, out, count));
    }

    /** The example on {@code comm} with {@code count} floats; returns true when everything checked out. */
    public static boolean run(Communicator comm, PrintStream out, int count) {
        int rank = comm.rank();
        boolean ok = allReduce(comm, count, 1);
        MemoryStats before = comm.memoryStats();
        out.printf("Rank %d holds %s%n", rank, before.describe());
        comm.suspend();
        MemoryStats suspended = comm.memoryStats();
        out.printf("Rank %d suspended: released %s, holds %s%n", rank, MemoryStats.size(suspended.suspendedBytes()),
                MemoryStats.size(suspended.totalBytes()));
        comm.resume();
        ok &= allReduce(comm, count, 2);
        MemoryStats after = comm.memoryStats();
        ok &= after.equals(before) && suspended.suspended() && suspended.totalBytes() < before.totalBytes();
        out.printf("Rank %d resumed: holds %s again%n", rank, MemoryStats.size(after.totalBytes()));
        out.printf("Rank %d: allReduce before suspend and after resume %s%n", rank, ok ? "correct" : "WRONG");
        return ok;
    }

    /** allReduce of {@code count} floats of {@code (rank + 1) * scale}; true when every element is the sum. */
    private static boolean allReduce(Communicator comm, int count, int scale) {
        float[] data = new float[count];
        Arrays.fill(data, (comm.rank() + 1f) * scale);
        comm.allReduce(data, RedOp.SUM);
        float want = scale * comm.size() * (comm.size() + 1) / 2f;
        for (float x : data) {
            if (x != want) {
                return false;
            }
        }
        return true;
    }
}
