package io.jccl.examples;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.RedOp;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * NCCL's one-device-per-thread example (examples/01_communicators/02_one_device_per_pthread) on host memory: one
 * process creates every rank with {@link Communicator#initAll} (NCCL's ncclCommInitAll) and drives each from its own
 * thread, summing {@code {rank, rank+1}}.
 *
 * <pre>{@code ./jccl run -np 1 io.jccl.examples.ThreadsExample [RANKS]}</pre>
 */
public final class ThreadsExample {
    private ThreadsExample() {
    }

    public static void main(String[] args) {
        int n = Examples.intArg(args, 0, 4);
        boolean ok = run(n, System.out);
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    /** Runs {@code nRanks} ranks as threads of this process; returns true when every rank got the right sums. */
    public static boolean run(int nRanks, PrintStream out) {
        List<Communicator> comms = Communicator.initAll(nRanks, Config.defaults().withName("threads-example"));
        AtomicBoolean ok = new AtomicBoolean(true);
        List<Thread> threads = new ArrayList<>();
        for (Communicator comm : comms) {
            threads.add(Thread.ofPlatform().name("rank-" + comm.rank()).start(() -> {
                try (comm) {
                    float[] data = {comm.rank(), comm.rank() + 1};
                    comm.allReduce(data, RedOp.SUM);
                    float first = nRanks * (nRanks - 1) / 2f;
                    boolean right = data[0] == first && data[1] == first + nRanks;
                    synchronized (out) {
                        out.printf("Thread of rank %d received sums %.0f and %.0f: %s%n", comm.rank(), data[0],
                                data[1], right ? "correct" : "WRONG");
                    }
                    if (!right) {
                        ok.set(false);
                    }
                } catch (RuntimeException e) {
                    synchronized (out) {
                        out.printf("Thread of rank %d failed: %s%n", comm.rank(), e.getMessage());
                    }
                    ok.set(false);
                }
            }));
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return ok.get();
    }
}
