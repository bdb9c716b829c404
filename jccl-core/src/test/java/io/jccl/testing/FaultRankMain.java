package io.jccl.testing;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.JcclException;
import io.jccl.RedOp;

import java.time.Duration;
import java.util.Arrays;

/**
 * A rank process for fault tests: runs checked allReduces until it is told to stop or fails. It prints
 * {@code READY} after a few iterations (the test then kills or stops a rank), {@code WRONG ...} and exits 2 if a
 * result is ever wrong, and on a failure prints {@code FAILED rank R at <epoch ms> ...} with the error and
 * {@code LOST [..]}; with {@code shrink} the survivors then shrink and print {@code SHRINK OK} after checked
 * allReduces on the new communicator.
 *
 * <p>Arguments: {@code count=N} floats per allReduce, {@code iters=N} (default: until failure), {@code shrink},
 * {@code timeout=S} seconds (JCCL timeout).
 */
public final class FaultRankMain {
    private FaultRankMain() {
    }

    public static void main(String[] args) {
        int count = 1 << 16;
        long iters = Long.MAX_VALUE;
        boolean shrink = false;
        int timeoutS = 60;
        for (String a : args) {
            if (a.startsWith("count=")) {
                count = Integer.parseInt(a.substring(6));
            } else if (a.startsWith("iters=")) {
                iters = Long.parseLong(a.substring(6));
            } else if (a.equals("shrink")) {
                shrink = true;
            } else if (a.startsWith("timeout=")) {
                timeoutS = Integer.parseInt(a.substring(8));
            }
        }
        Communicator comm = Communicator.fromEnvironment(Config.defaults().withTimeout(Duration.ofSeconds(timeoutS)));
        int rank = comm.rank();
        float[] d = new float[count];
        long it = 0;
        try {
            while (it < iters) {
                checkedAllReduce(comm, d, it);
                it++;
                if (it == 3) {
                    System.out.println("READY rank " + rank);
                    System.out.flush();
                }
            }
            System.out.println("DONE rank " + rank + " after " + it + " iterations");
            comm.close();
            System.exit(0);
        } catch (JcclException e) {
            System.out.println("FAILED rank " + rank + " at " + System.currentTimeMillis() + " after " + it
                    + " iterations: " + e.result() + ": " + e.getMessage());
            long until = System.nanoTime() + 5_000_000_000L;
            while (comm.lostRanks().length == 0 && System.nanoTime() < until) {
                sleep(10);
            }
            System.out.println("LOST " + Arrays.toString(comm.lostRanks()));
            System.out.flush();
            int code = 3;
            if (shrink) {
                try (Communicator s = comm.shrink(comm.lostRanks())) {
                    float[] e2 = new float[count];
                    for (int i = 0; i < 3; i++) {
                        checkedAllReduce(s, e2, i);
                    }
                    System.out.println("SHRINK OK rank " + s.rank() + " of " + s.size());
                    code = 0;
                } catch (JcclException e2) {
                    System.out.println("SHRINK FAILED rank " + rank + ": " + e2.result() + ": " + e2.getMessage());
                }
            }
            System.out.flush();
            comm.abort();
            System.exit(code);
        }
    }

    /** allReduce(SUM) of (rank + 1 + i % 7 + it % 5) checked exactly; exits 2 on a wrong element. */
    static void checkedAllReduce(Communicator c, float[] d, long it) {
        int n = c.size();
        int shift = (int) (it % 5);
        for (int i = 0; i < d.length; i++) {
            d[i] = c.rank() + 1 + i % 7 + shift;
        }
        c.allReduce(d, RedOp.SUM);
        for (int i = 0; i < d.length; i++) {
            float exp = n * (n + 1) / 2f + n * (i % 7 + shift);
            if (d[i] != exp) {
                System.out.println("WRONG rank " + c.rank() + " iteration " + it + " element " + i + ": " + d[i]
                        + " != " + exp);
                System.out.flush();
                System.exit(2);
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
