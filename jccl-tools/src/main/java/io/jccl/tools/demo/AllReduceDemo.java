package io.jccl.tools.demo;

import io.jccl.Communicator;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.tools.Cli;

import java.io.PrintStream;

/**
 * One rank of the classic NCCL example: joins the communicator its launcher described
 * ({@link Communicator#fromEnvironment()}), fills {@code {rank, rank+1}}, sums them over all ranks with allReduce
 * and prints each element, {@code Device r correctly received sum: v}, or says what was wrong and exits 1.
 * Runs on the process's main thread; the JCCL version of NCCL's {@code one_device_per_process_mpi} example.
 */
public final class AllReduceDemo {
    private AllReduceDemo() {
    }

    public static void main(String[] args) {
        boolean ok;
        try (Communicator comm = Communicator.fromEnvironment()) {
            ok = run(comm, System.out);
        } catch (JcclException e) {
            System.err.println("AllReduceDemo: " + Cli.describe(e));
            ok = false;
        }
        System.exit(ok ? 0 : 1);
    }

    /** Runs the demo on {@code comm}; returns true when both sums are right. */
    public static boolean run(Communicator comm, PrintStream out) {
        int rank = comm.rank();
        int n = comm.size();
        float[] send = {rank, rank + 1};
        float[] recv = new float[2];
        comm.allReduce(send, recv, RedOp.SUM);
        out.printf("Collective operation completed on rank %d%n", rank);
        float[] expected = expectedSums(n);
        boolean ok = true;
        for (int i = 0; i < recv.length; i++) {
            if (recv[i] == expected[i]) {
                out.printf("Device %d correctly received sum: %.0f%n", rank, recv[i]);
            } else {
                out.printf("Device %d received incorrect result: %.0f (expected %.0f)%n", rank, recv[i], expected[i]);
                ok = false;
            }
        }
        return ok;
    }

    /** The sums every rank must receive with {@code n} ranks: 0+1+...+(n-1) and 1+2+...+n. */
    static float[] expectedSums(int n) {
        float first = n * (n - 1) / 2f;
        return new float[]{first, first + n};
    }
}
