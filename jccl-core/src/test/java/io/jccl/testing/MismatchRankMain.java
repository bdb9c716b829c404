package io.jccl.testing;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.JcclException;
import io.jccl.RedOp;

import java.time.Duration;

/**
 * A rank process that makes a call the others do not: after one matching allReduce, rank {@code odd=R} broadcasts
 * {@code count=N} floats from rank 0 while every other rank allReduces them. Prints {@code REFUSED <ms> <message>}
 * (ms from its call to its error) when the call or the next one is refused, {@code NOT REFUSED} otherwise.
 */
public final class MismatchRankMain {
    private MismatchRankMain() {
    }

    public static void main(String[] args) throws Exception {
        int odd = 1;
        int count = 1000;
        for (String a : args) {
            if (a.startsWith("odd=")) {
                odd = Integer.parseInt(a.substring(4));
            } else if (a.startsWith("count=")) {
                count = Integer.parseInt(a.substring(6));
            }
        }
        Config config = Config.defaults().withTimeout(Duration.ofSeconds(8));
        Communicator comm = Communicator.fromEnvironment(config);
        float[] d = new float[count];
        comm.allReduce(d, RedOp.SUM);
        long t0 = System.nanoTime();
        try {
            if (comm.rank() == odd) {
                comm.broadcast(d, 0);
            } else {
                comm.allReduce(d, RedOp.SUM);
            }
            for (int i = 0; i < 30; i++) {
                comm.barrier();
                Thread.sleep(100);
            }
            System.out.println("NOT REFUSED");
        } catch (JcclException e) {
            System.out.println("REFUSED " + (System.nanoTime() - t0) / 1_000_000 + " " + e.getMessage());
        } finally {
            comm.abort();
        }
    }
}
