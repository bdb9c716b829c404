package org.example.consumer;

import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.RedOp;
import io.jccl.UniqueId;
import io.jccl.cuda.CudaDevice;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A 2-rank float allReduce, one rank per thread, written as an application would write it: only JCCL's public API
 * ({@code io.jccl}, {@code io.jccl.cuda}). Compiled and run on the module path (with module-info.java) and on the
 * class path (without) by ModuleConsumerTest. Prints what it checked; exits 1 when a rank got a wrong sum.
 */
public final class ConsumerMain {
    private static final int RANKS = 2;
    private static final int COUNT = 4099;

    private ConsumerMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println("consumer module: " + describe(ConsumerMain.class.getModule()));
        System.out.println("jccl module: " + describe(Communicator.class.getModule()));
        System.out.println("cuda module: " + describe(CudaDevice.class.getModule()));
        System.out.println("cuda available: " + CudaDevice.isAvailable());
        UniqueId id = Jccl.uniqueId();
        float[][] results = new float[RANKS][];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] threads = new Thread[RANKS];
        for (int r = 0; r < RANKS; r++) {
            int rank = r;
            threads[r] = Thread.ofPlatform().name("rank-" + r).start(() -> {
                try (Communicator comm = Communicator.init(id, RANKS, rank)) {
                    float[] data = new float[COUNT];
                    for (int i = 0; i < COUNT; i++) {
                        data[i] = rank * 1000 + i % 997;
                    }
                    comm.allReduce(data, RedOp.SUM);
                    results[rank] = data;
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                }
            });
        }
        for (Thread t : threads) {
            t.join(120_000);
            if (t.isAlive()) {
                throw new IllegalStateException(t.getName() + " did not finish its allReduce within 120 s");
            }
        }
        if (failure.get() != null) {
            failure.get().printStackTrace();
            System.exit(1);
        }
        int wrong = 0;
        for (int r = 0; r < RANKS; r++) {
            for (int i = 0; i < COUNT; i++) {
                float expected = 1000 + 2 * (i % 997);
                if (results[r][i] != expected) {
                    if (wrong++ < 5) {
                        System.out.printf("rank %d element %d: %s, expected %s%n", r, i, results[r][i], expected);
                    }
                }
            }
        }
        System.out.println(wrong == 0 ? "allReduce of " + COUNT + " floats on " + RANKS + " ranks: correct"
                : "allReduce: " + wrong + " wrong elements");
        System.exit(wrong == 0 ? 0 : 1);
    }

    private static String describe(Module m) {
        return m.isNamed() ? m.getName() : "unnamed";
    }
}
