package io.jccl.testing;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.Jccl;
import io.jccl.UniqueId;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Runs N ranks as threads of this JVM, each with its own communicator over real sockets: the fast, debuggable half
 * of the multi-rank harness. Every rank's failure is collected; a rank that does not finish in time fails the run
 * with a thread dump of the stuck ranks.
 */
public final class ThreadRanks {
    /** The code each rank runs. */
    @FunctionalInterface
    public interface Body {
        void run(Communicator comm) throws Exception;
    }

    /** Per-rank results of a run, for tests that expect some ranks to fail. */
    public record Outcome(List<Throwable> errors) {
        public Throwable error(int rank) {
            return errors.get(rank);
        }
    }

    private ThreadRanks() {
    }

    public static Config testConfig() {
        return Config.defaults().withTimeout(Duration.ofSeconds(30));
    }

    /** Runs {@code body} on {@code n} ranks and rethrows the first failure. */
    public static void run(int n, Body body) {
        run(n, testConfig(), body);
    }

    public static void run(int n, Config config, Body body) {
        Outcome o = runCollect(n, config, body, 120);
        for (int r = 0; r < n; r++) {
            Throwable t = o.error(r);
            if (t != null) {
                AssertionError e = new AssertionError("rank " + r + " of " + n + " failed: " + t, t);
                for (int q = 0; q < n; q++) {
                    if (q != r && o.error(q) != null) {
                        e.addSuppressed(o.error(q));
                    }
                }
                throw e;
            }
        }
    }

    /** Runs and returns every rank's error (or null), waiting at most {@code limitSeconds}. */
    public static Outcome runCollect(int n, Config config, Body body, int limitSeconds) {
        return runCollect(n, config, body, limitSeconds, null);
    }

    /**
     * Runs {@code body} on ranks spread over fake hosts: rank r's host id is {@code hostOfRank[r]} (peers on other
     * "hosts" are reached over sockets, as across machines), and rethrows the first failure.
     */
    public static void runOnHosts(int[] hostOfRank, Config config, Body body) {
        int n = hostOfRank.length;
        Outcome o = runCollect(n, config, body, 120, hostOfRank);
        for (int r = 0; r < n; r++) {
            if (o.error(r) != null) {
                AssertionError e = new AssertionError("rank " + r + " of " + n + " failed: " + o.error(r), o.error(r));
                for (int q = 0; q < n; q++) {
                    if (q != r && o.error(q) != null) {
                        e.addSuppressed(o.error(q));
                    }
                }
                throw e;
            }
        }
    }

    /** As {@link #runCollect(int, Config, Body, int)}, with rank r on fake host {@code hostOfRank[r]} (null: real). */
    public static Outcome runCollect(int n, Config config, Body body, int limitSeconds, int[] hostOfRank) {
        UniqueId id = Jccl.uniqueId();
        AtomicReferenceArray<Throwable> errors = new AtomicReferenceArray<>(n);
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            int rank = r;
            threads.add(Thread.ofPlatform().name("test-rank-" + r).start(() -> {
                Communicator c = null;
                try {
                    if (hostOfRank != null) {
                        io.jccl.internal.comm.PeerInfo.THREAD_HOST_ID.set("fake-host-" + hostOfRank[rank]);
                    }
                    c = Communicator.init(id, n, rank, config);
                    body.run(c);
                } catch (Throwable t) {
                    errors.set(rank, t);
                } finally {
                    if (c != null) {
                        try {
                            if (errors.get(rank) != null) {
                                c.abort();
                            } else {
                                c.close();
                            }
                        } catch (Throwable t) {
                            errors.compareAndSet(rank, null, t);
                        }
                    }
                }
            }));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(limitSeconds);
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                StringBuilder dump = new StringBuilder();
                for (Thread s : threads) {
                    if (s.isAlive()) {
                        dump.append(s.getName()).append(":\n");
                        for (StackTraceElement el : s.getStackTrace()) {
                            dump.append("  at ").append(el).append('\n');
                        }
                    }
                }
                throw new AssertionError("ranks did not finish within " + limitSeconds + " s (hang):\n" + dump);
            }
        }
        List<Throwable> out = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            out.add(errors.get(r));
        }
        return new Outcome(out);
    }
}
