package com.example.allreduce;

import io.jccl.Communicator;
import io.jccl.JcclException;
import io.jccl.RedOp;

/**
 * A new user's first JCCL program, built against the installed artifacts exactly as the README's "Use it from
 * Maven/Gradle" says (see this directory's pom.xml): join the job whatever launcher started this process
 * (./jccl run, mpirun, srun, torchrun), allReduce a float array, check every element, exit 0 when all are right.
 * Runs on the process's main thread.
 *
 * <p>Rank r contributes {@code r + i % 7} at index i, so every element of the sum is a small integer, exact in
 * float: {@code size * (size - 1) / 2 + size * (i % 7)}.
 *
 * <pre>{@code
 * ./jccl run -np 2 -cp target/jccl-consumer-1.0.jar -- com.example.allreduce.Main
 * mpirun -np 2 java -cp 'target/jccl-consumer-1.0.jar:target/lib/*' com.example.allreduce.Main
 * }</pre>
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 16;
        boolean ok;
        try (Communicator comm = Communicator.fromEnvironment()) {
            ok = run(comm, count);
        } catch (JcclException e) {
            System.err.println("consumer: " + e.getMessage());
            ok = false;
        }
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    private static boolean run(Communicator comm, int count) {
        int rank = comm.rank();
        int size = comm.size();
        float[] data = new float[count];
        for (int i = 0; i < count; i++) {
            data[i] = rank + i % 7;
        }
        comm.allReduce(data, RedOp.SUM);
        int wrong = 0;
        int first = -1;
        for (int i = 0; i < count; i++) {
            float expected = size * (size - 1) / 2f + size * (i % 7);
            if (data[i] != expected) {
                wrong++;
                if (first < 0) {
                    first = i;
                }
            }
        }
        if (wrong > 0) {
            float expected = size * (size - 1) / 2f + size * (first % 7);
            // one println per line: printf writes piece by piece, and a launcher (mpirun) that merges the ranks'
            // output may put another rank's pieces between them
            System.out.println(String.format("consumer: rank %d of %d: allReduce of %d floats WRONG: %d wrong "
                    + "elements, first at %d: %s instead of %s", rank, size, count, wrong, first, data[first],
                    expected));
            return false;
        }
        System.out.println(String.format("consumer: rank %d of %d: allReduce of %d floats correct (element 6 = %s)",
                rank, size, count, count > 6 ? data[6] : Float.NaN));
        return true;
    }
}
