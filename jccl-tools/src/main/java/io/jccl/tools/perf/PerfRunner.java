package io.jccl.tools.perf;

import io.jccl.DataType;
import io.jccl.RedOp;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * One rank's perf run: for every type, reduction and root, warms up, then for every size measures the
 * out-of-place and the in-place call ({@code -n} timed iterations of {@code -m} calls, time averaged over ranks as
 * {@code -a} says), checks the results {@code -c} times against {@link ExpectedValues}, and hands the numbers to
 * rank 0's {@link PerfReport}. Every rank runs the same sequence of calls. Owned by the rank's thread; mirrors
 * nccl-tests' {@code TimeTest}/{@code BenchTime}.
 */
public final class PerfRunner {
    /** What a rank's run came to. */
    public record Outcome(int errors, double avgBusBwGBps, boolean bandwidthFailed) {
        /** The process exit status nccl-tests would give: non-zero on wrong results or too low a bandwidth. */
        public int exitCode() {
            return errors > 0 || bandwidthFailed ? 1 : 0;
        }
    }

    private final PerfOptions o;
    private final PerfBackend backend;
    private final ElementAccess access;
    private final PerfReport report;
    private final OpWatchdog watchdog;
    private final double minBusBw;
    private final int rank;
    private final int nRanks;
    private PerfBuffer send;
    private PerfBuffer recv;
    private int rep;
    private int errors;
    private double bwSum;
    private int bwCount;

    /**
     * @param report   rank 0's report, null on the other ranks
     * @param watchdog the {@code -T} watchdog, or null
     * @param minBusBw {@code NCCL_TESTS_MIN_BW} in GB/s, negative when unset
     */
    public PerfRunner(PerfOptions options, PerfBackend backend, ElementAccess access, PerfReport report,
                      OpWatchdog watchdog, double minBusBw) {
        this.o = options;
        this.backend = backend;
        this.access = access;
        this.report = report;
        this.watchdog = watchdog;
        this.minBusBw = minBusBw;
        this.rank = backend.rank();
        this.nRanks = backend.nRanks();
    }

    /** Runs the whole sweep; rank 0 prints. */
    public Outcome run(int nThreads) {
        String line = ResultTable.rankLine(rank, 0, ProcessHandle.current().pid(), HostInfo.hostName(),
                backend.deviceIndex(), backend.deviceBusId(), backend.deviceName());
        List<String> lines = backend.gatherLines(line);
        List<Integer> roots = o.roots(nRanks);
        if (report != null) {
            SizeSweep s = o.sweep();
            // GPU runs drive each GPU from its own thread: one GPU per thread, as nccl-tests counts them
            int gpusPerThread = o.target().gpu() ? 1 : o.gpus();
            report.begin(new ResultTable.RunHeader(o.collective().programName(), nThreads, gpusPerThread, s.minBytes(),
                    s.maxBytes(), s.step(), s.multiplicative(), o.warmupIters(), o.iters(), o.aggIters(), o.check(),
                    o.graphLaunches(), o.registration().code()), nRanks, lines);
        }
        send = backend.allocate(o.sweep().maxBytes());
        recv = backend.allocate(o.sweep().maxBytes());
        for (DataType type : o.types()) {
            for (OpChoice op : o.opsToRun()) {
                for (int root : roots) {
                    timeTest(type, op, root);
                }
            }
        }
        backend.finish();
        double avg = bwCount == 0 ? 0 : bwSum / bwCount;
        boolean bwFailed = minBusBw >= 0 && avg < minBusBw * 0.9;
        if (report != null) {
            report.end(errors, avg, minBusBw);
        }
        return new Outcome(errors, avg, bwFailed);
    }

    /**
     * Calls per warm-up size (sizes up to {@link #JIT_WARMUP_MAX_BYTES}, fewer above 1 MiB) before the first
     * measurement, so the JIT has compiled the call path
     * (nccl-tests' -w assumes compiled code; a JVM needs thousands of calls, C2 about 10,000). {@code
     * JCCL_PERF_JIT_WARMUP}, default 1000 (times 10 up to 4 KiB) per round, rounds repeated until the time per call
     * stops improving (measured: C2 settles the small-message path after 100,000 to 300,000 calls), within
     * {@link #jitWarmupBudgetNs}; the same on every rank because launchers pass the environment on.
     */
    static int jitWarmupCalls() {
        try {
            return io.jccl.internal.param.ExternalParams.PERF_JIT_WARMUP.get();
        } catch (io.jccl.JcclException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * The most time one warm-up may take ({@code JCCL_PERF_JIT_WARMUP_MS}, default 1 s), in ns; the warm-up before
     * the first row stops after {@link #FIRST_ROWS_BUDGETS} of these. The same on every rank (launchers pass the
     * environment on).
     */
    static long jitWarmupBudgetNs() {
        try {
            return io.jccl.internal.param.ExternalParams.PERF_JIT_WARMUP_MS.get() * 1_000_000L;
        } catch (io.jccl.JcclException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** How many single warm-up budgets the warm-up before the first row may take in all. */
    static final int FIRST_ROWS_BUDGETS = 4;

    /** Quiet JIT time awaited after a host warm-up ({@link JitQuiet}), and the most time spent waiting for it. */
    public static final long JIT_QUIET_MS = 150;
    public static final long JIT_QUIET_MAX_MS = 3000;

    /** Largest size the up-front JIT warm-up runs (larger calls take long enough to time as they are). */
    static final long JIT_WARMUP_MAX_BYTES = 4L << 20;

    private boolean jitWarmedUp;
    private boolean smallWarmedUp;

    /**
     * At least {@code minRounds} rounds of at most {@code perRound} calls, then more until the time per call stops
     * improving, all within {@code budgetNs} ({@link Settle#untilFlatWithin}). The decisions use the slowest rank's
     * time, so every rank runs the same rounds.
     *
     * @return the time the warm-up took, in ns, the same on every rank
     */
    private double jitWarmup(PerfBackend.PreparedCall call, int perRound, int minRounds, long budgetNs) {
        return Settle.untilFlatWithin(minRounds, perRound, budgetNs, calls -> {
            double t = backend.reduceStat(warmupRound(call, calls), PerfBackend.StatMode.MAX);
            rehearseBetweenRows();
            return t;
        });
    }

    /**
     * One warm-up round of about {@code calls} calls; returns ns per call. On the host it runs through the timed loop
     * itself ({@link PerfBackend#timeCalls}, with the row's -m and -z): a loop first run by the first timed row is
     * compiled (C1, then C2 and OSR) while that row runs, and on 2 cores each compile stalls both ranks for 0.1-0.5
     * ms (seen by timing every call of a 32 KiB row and matching the stalls to -Xlog:jit+compilation: the first row
     * of a sweep ran at 14-31 µs per call against 10-11 in the next).
     */
    private double warmupRound(PerfBackend.PreparedCall call, int calls) {
        if (o.target() == PerfTarget.HOST) {
            int agg = Math.max(1, o.aggIters());
            return backend.timeCalls(call, Math.max(1, calls / agg), agg, o.blocking() != 0) * 1e9;
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            call.launch();
        }
        backend.synchronize();
        return (System.nanoTime() - t0) / (double) calls;
    }

    /**
     * Barriers until the ranks leave one together ({@link Settle#alignRanks}): after the JIT-quiet wait they reach it
     * up to seconds apart, and Open MPI's benchmark never sleeps, so its ranks never wait for a wake-up.
     */
    private void alignRanks() {
        Settle.alignRanks(backend::barrier, us -> backend.reduceStat(us, PerfBackend.StatMode.MAX));
    }

    /**
     * The calls every row makes around its timed loop (barrier, the time statistic, the wrong-element sum), made during
     * the warm-up too: otherwise the JIT compiles the call path for the measured collective alone, and the first
     * barrier or FLOAT64/INT64 reduction after it hits an uncommon trap (an unseen branch, a third reducer class) in
     * the shared path, which is then recompiled while the next row is timed (seen with -Xlog:deoptimization: traps in
     * AlgoResolver.resolve and OneShotAllReduce.run, rows of 8 B at 5-15 us instead of 0.5).
     */
    private void rehearseBetweenRows() {
        backend.barrier();
        backend.reduceStat(0, o.statMode());
        backend.sumLong(0);
    }

    private void timeTest(DataType type, OpChoice op, int root) {
        RedOp redOp = op == null ? RedOp.SUM : op.redOp(rank);
        String opName = op == null ? "none" : op.testName();
        backend.barrier();
        if (!jitWarmedUp) {
            jitWarmedUp = true;
            int calls = jitWarmupCalls();
            long budgetNs = jitWarmupBudgetNs();
            double[] leftNs = {FIRST_ROWS_BUDGETS * (double) budgetNs};
            for (long size : o.sweep().warmupSizes()) {
                if (size > JIT_WARMUP_MAX_BYTES || calls == 0 || leftNs[0] <= 0) {
                    break;
                }
                BufferLayout layout = BufferLayout.of(o.collective(), size, type.sizeBytes(), nRanks);
                boolean small = size <= (4 << 10);
                int perRound = small ? 10 * calls : (int) Math.max(20, calls * Math.min(1.0,
                        (1 << 20) / (double) size));
                // out-of-place and in-place alike: code compiled on one alone meets the other with a deoptimisation
                // (uncommon trap) and half a second of recompiling in the middle of a timed row
                for (boolean inPlace : new boolean[]{false, true}) {
                    PerfBackend.PreparedCall call = backend.prepare(
                            CollectiveCall.of(o.collective(), layout, inPlace, send, recv, type, redOp, root, rank));
                    int minRounds = small && !smallWarmedUp ? 30 : 2;
                    armed(() -> leftNs[0] -= jitWarmup(call, perRound, minRounds,
                            (long) Math.min(budgetNs, leftNs[0])));
                }
                smallWarmedUp |= small;
            }
            if (o.target() == PerfTarget.HOST) {
                JitQuiet.await(JIT_QUIET_MS, JIT_QUIET_MAX_MS);
            }
            backend.barrier();
        }
        for (long size : o.sweep().warmupSizes()) {
            BufferLayout layout = BufferLayout.of(o.collective(), size, type.sizeBytes(), nRanks);
            PerfBackend.PreparedCall call = backend.prepare(
                    CollectiveCall.of(o.collective(), layout, false, send, recv, type, redOp, root, rank));
            armed(() -> {
                for (int i = 0; i < o.warmupIters(); i++) {
                    call.launch();
                }
                backend.synchronize();
            });
        }
        int cycles = o.cycles();
        for (int cycle = 0; cycles == 0 || cycle < cycles; cycle++) {
            for (long size : o.sweep().sizes()) {
                BufferLayout layout = BufferLayout.of(o.collective(), size, type.sizeBytes(), nRanks);
                if (report != null) {
                    report.rowStart(layout.printedBytes(), layout.paramCount(), type.ncclName(), opName, root);
                }
                bench(layout, type, op, redOp, root, false);
                bench(layout, type, op, redOp, root, true);
                if (report != null) {
                    report.rowEnd();
                }
            }
        }
    }

    private void bench(BufferLayout layout, DataType type, OpChoice op, RedOp redOp, int root, boolean inPlace) {
        CollectiveCall cc = CollectiveCall.of(o.collective(), layout, inPlace, send, recv, type, redOp, root, rank);
        PerfBackend.PreparedCall call = backend.prepare(cc);
        backend.barrier();
        int calls = jitWarmupCalls();
        long bytes = layout.paramCount() * (long) layout.eltSize();
        if (calls > 0 && bytes <= (1 << 20) && o.target() == PerfTarget.HOST) {
            // the barrier and checks between measurements take paths the timed loop did not, and the JIT answers
            // with deoptimisations it needs thousands of calls to recover from: settle this exact call first
            int perRound = (int) Math.max(50, Math.min(5 * calls, (1L << 22) / Math.max(1, bytes)));
            armed(() -> jitWarmup(call, perRound, bytes <= (4 << 10) ? 6 : 2, jitWarmupBudgetNs()));
            JitQuiet.await(JIT_QUIET_MS, JIT_QUIET_MAX_MS);
            alignRanks();
        }
        double seconds = timeIterations(call);
        seconds = backend.reduceStat(seconds, o.statMode());
        BandwidthModel.Bandwidth bw = BandwidthModel.of(o.collective(), layout.paramCount(), layout.eltSize(),
                nRanks, seconds);
        boolean reportWrong = o.check() > 0 && (!inPlace || o.collective().checksInPlace());
        long wrong = -1;
        if (o.check() > 0) {
            wrong = check(cc, call, layout, type, op, root, inPlace);
            if (reportWrong && wrong > 0) {
                errors++;
            }
        }
        if (report != null) {
            report.cell(inPlace, seconds * 1e6, bw, wrong, reportWrong);
        }
        bwSum += bw.busBwGBps();
        bwCount++;
    }

    /** The mean time of one call over {@code -n} iterations of {@code -m} calls, in seconds. */
    private double timeIterations(PerfBackend.PreparedCall call) {
        if (watchdog != null) {
            watchdog.arm();
        }
        try {
            return backend.timeCalls(call, o.iters(), o.aggIters(), o.blocking() != 0);
        } finally {
            if (watchdog != null) {
                watchdog.disarm();
            }
        }
    }

    /** Runs the call {@code -c} times on fresh inputs; returns the wrong elements summed over ranks (last run). */
    private long check(CollectiveCall cc, PerfBackend.PreparedCall call, BufferLayout layout, DataType type,
                       OpChoice op, int root, boolean inPlace) {
        ExpectedValues expected = new ExpectedValues(o.collective(), layout, type, op, root, rank, nRanks);
        long clearBytes = inPlace ? Math.max(cc.sendOffsetBytes() + cc.sendBytes(), cc.recvOffsetBytes()
                + cc.recvBytes())
                : cc.recvBytes();
        MemorySegment in = cc.send().host().asSlice(cc.sendOffsetBytes(), cc.sendBytes());
        MemorySegment out = cc.recv().host().asSlice(cc.recvOffsetBytes(), cc.recvBytes());
        long wrong = 0;
        for (int c = 0; c < o.check(); c++) {
            rep++;
            recv.host().asSlice(0, clearBytes).fill((byte) 0);
            expected.fillInput(access, in, rep);
            recv.copyToDevice(0, clearBytes);
            if (!inPlace) {
                send.copyToDevice(0, cc.sendBytes());
            }
            armed(() -> {
                call.launch();
                backend.synchronize();
            });
            recv.copyToHost(cc.recvOffsetBytes(), cc.recvBytes());
            wrong = backend.sumLong(expected.countWrong(access, out, rep));
            if (wrong > 0) {
                break;
            }
        }
        return wrong;
    }

    private void armed(Runnable r) {
        if (watchdog != null) {
            watchdog.arm();
        }
        try {
            r.run();
        } finally {
            if (watchdog != null) {
                watchdog.disarm();
            }
        }
    }
}
