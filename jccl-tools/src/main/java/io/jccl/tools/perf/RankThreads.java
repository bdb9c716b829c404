package io.jccl.tools.perf;

import io.jccl.tools.Cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one {@link PerfRunner} per backend of this process, each on its own thread (rank 0's runner prints), arms
 * one {@code -T} watchdog per rank, and turns the outcome into an exit code. When a rank fails, every communicator
 * of this process is aborted so the other ranks fail fast instead of waiting for it. Created and joined by the
 * main thread; mirrors nccl-tests' {@code threadRunTests} per thread and its error path.
 */
public final class RankThreads {
    private final PerfOptions options;
    private final List<PerfBackend> backends;
    private final PrintStream out;
    private final PrintStream err;
    private final double minBusBw;
    private final ElementAccess access;
    private volatile PerfReport report;

    public RankThreads(PerfOptions options, List<PerfBackend> backends, PrintStream out, PrintStream err,
                       double minBusBw) {
        this(options, backends, out, err, minBusBw, ElementAccess.DATA_TYPE);
    }

    /** With a custom element accessor (tests). */
    public RankThreads(PerfOptions options, List<PerfBackend> backends, PrintStream out, PrintStream err,
                       double minBusBw, ElementAccess access) {
        this.options = options;
        this.backends = List.copyOf(backends);
        this.out = out;
        this.err = err;
        this.minBusBw = minBusBw;
        this.access = access;
    }

    /** Runs all ranks to the end; returns 0, or 1 on wrong results, low bandwidth, a failure or a timeout. */
    public int run() {
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        List<PerfRunner.Outcome> outcomes = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<OpWatchdog> watchdogs = new ArrayList<>();
        for (PerfBackend b : backends) {
            OpWatchdog dog = options.timeoutSec() > 0 ? new OpWatchdog(options.timeoutSec(), this::timedOut) : null;
            if (dog != null) {
                watchdogs.add(dog);
            }
            PerfReport report = b.rank() == 0 ? new PerfReport(out, options) : null;
            if (report != null) {
                this.report = report;
            }
            PerfRunner runner = new PerfRunner(options, b, access, report, dog, minBusBw);
            threads.add(Thread.ofPlatform().name("perf-rank-" + b.rank()).start(() -> {
                try {
                    PerfRunner.Outcome outcome = runner.run(backends.size());
                    synchronized (outcomes) {
                        outcomes.add(outcome);
                    }
                } catch (Throwable t) {
                    if (firstFailure.compareAndSet(null, t)) {
                        err.println("jccl perf: rank " + b.rank() + " failed: " + Cli.describe(t));
                        abortAll();
                    }
                }
            }));
        }
        try {
            for (Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abortAll();
            return 1;
        } finally {
            watchdogs.forEach(OpWatchdog::close);
            closeAll();
        }
        boolean timedOut = watchdogs.stream().anyMatch(OpWatchdog::fired);
        if (firstFailure.get() != null || timedOut) {
            return 1;
        }
        return outcomes.stream().mapToInt(PerfRunner.Outcome::exitCode).max().orElse(1);
    }

    /** The cells rank 0 of this process measured (empty when this process has no rank 0). */
    public List<ResultRecord> results() {
        PerfReport r = report;
        return r == null ? List.of() : r.records();
    }

    private void timedOut() {
        out.printf("%s: Test timeout (%ds)%n", HostInfo.hostName(), (long) Math.ceil(options.timeoutSec()));
        out.flush();
        abortAll();
    }

    private void abortAll() {
        for (PerfBackend b : backends) {
            try {
                b.abort();
            } catch (RuntimeException ignored) {
                // already broken or closed: nothing left to stop
            }
        }
    }

    /** Closes every rank from this thread inside one group, so each close's handshake with its peers can finish. */
    private void closeAll() {
        io.jccl.Jccl.groupStart();
        try {
            for (PerfBackend b : backends) {
                try {
                    b.close();
                } catch (RuntimeException e) {
                    err.println("jccl perf: closing rank " + b.rank() + ": " + Cli.describe(e));
                }
            }
        } finally {
            try {
                io.jccl.Jccl.groupEnd();
            } catch (RuntimeException e) {
                err.println("jccl perf: closing the ranks: " + Cli.describe(e));
            }
        }
    }
}
