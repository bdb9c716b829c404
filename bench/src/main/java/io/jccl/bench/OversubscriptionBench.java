package io.jccl.bench;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.tools.perf.JitQuiet;
import io.jccl.tools.perf.PerfRunner;
import io.jccl.tools.perf.Settle;
import io.jccl.tools.perf.SizeParser;
import io.jccl.tools.perf.SizeSweep;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Measures allReduce with all N ranks of a job against allReduce with two of them (world ranks 0 and N/2, split off
 * into their own communicator) in alternating phases of one job, so both sides of every ratio see the same machine:
 * on a VM whose host moves the vCPUs between cores that share a cache and cores that do not, two separate runs can
 * differ 2-3x before the code does anything. While the pair runs, the other ranks wait in a world barrier (they yield
 * briefly, then sleep) and take no CPU. Each round times every size once per side, in alternating order, each phase
 * about {@code --phase-ms} long; the table gives the medians over the rounds, the ratio of the medians and the spread
 * of the per-round ratios (N-rank time over 2-rank time per call, which is the time per byte at equal size).
 *
 * <pre>{@code ./jccl run -np 4 -cp bench/target/jccl-bench.jar io.jccl.bench.OversubscriptionBench -b 32K -e 8M}</pre>
 *
 * <p>Runs on each rank's main thread; rank 0 prints. Written for the oversubscription target (4 ranks on 2 cores
 * within 3x of the 2-rank time); there is no NCCL counterpart. It times its loops by perf's rules ({@link Settle},
 * {@link JitQuiet}) so that both sides time compiled code.
 */
@Command(name = "OversubscriptionBench", mixinStandardHelpOptions = true,
        description = "allReduce (float sum, out of place) with all ranks against two of them, in alternating phases "
                + "of one job; run under ./jccl run -np N")
public final class OversubscriptionBench implements Runnable {
    @Option(names = {"-b", "--minbytes"}, description = "smallest size (default 32K)")
    String minBytes = "32K";
    @Option(names = {"-e", "--maxbytes"}, description = "largest size (default 8M)")
    String maxBytes = "8M";
    @Option(names = {"-f", "--stepfactor"}, description = "size multiplier (default 4)")
    int factor = 4;
    @Option(names = "--rounds", description = "rounds (default 40)")
    int rounds = 40;
    @Option(names = "--phase-ms", description = "length of one timed phase in ms (default 30)")
    double phaseMs = 30;

    /** What one rank's run came to. */
    public record Result(List<Row> rows, long wrongElements) {
    }

    /** One size: its paired samples (filled on world rank 0 only; empty elsewhere). */
    public record Row(long bytes, int callsPerPhase, PairedSamples samples) {
    }

    /** Rounds run before the recorded ones. */
    static final int WARMUP_ROUNDS = 2;

    private int exit;

    public static void main(String[] args) {
        OversubscriptionBench b = new OversubscriptionBench();
        int rc = new CommandLine(b).execute(args);
        System.exit(rc != 0 ? rc : b.exit);
    }

    @Override
    public void run() {
        List<Long> sizes = sizes(SizeParser.parse(minBytes), SizeParser.parse(maxBytes), factor);
        try (Communicator world = Communicator.fromEnvironment()) {
            Result r = measure(world, sizes, rounds, phaseMs * 1e6);
            if (world.rank() == 0) {
                print(r, world.size(), rounds, phaseMs, System.out);
            }
            exit = r.wrongElements() == 0 ? 0 : 1;
        } catch (JcclException e) {
            System.err.println("OversubscriptionBench: " + e.getMessage());
            exit = 1;
        }
    }

    /** The sizes from {@code min} to {@code max}, multiplied by {@code factor}, rounded down to whole floats. */
    static List<Long> sizes(long min, long max, int factor) {
        if (min < 4 || max < min || factor < 2) {
            throw new IllegalArgumentException("need 4 <= minbytes <= maxbytes and stepfactor >= 2, got " + min + ", "
                    + max + ", " + factor);
        }
        return new SizeSweep(min, max, 0, factor).sizes().stream().map(b -> b / 4 * 4).toList();
    }

    /**
     * The measurement on one rank. Every rank of {@code world} calls it with the same arguments.
     *
     * @param world    the job's communicator (at least 3 ranks: the pair is a strict subset)
     * @param sizes    bytes per rank, each a multiple of 4
     * @param rounds   rounds per size
     * @param phaseNs  the target length of one timed phase
     * @return rank 0's samples and the wrong elements every rank saw (summed)
     */
    public static Result measure(Communicator world, List<Long> sizes, int rounds, double phaseNs) {
        int n = world.size();
        int rank = world.rank();
        if (n < 3) {
            throw new IllegalArgumentException("needs at least 3 ranks (it compares them with 2 of them), got " + n);
        }
        boolean inPair = rank == 0 || rank == n / 2;
        long maxBytes = sizes.stream().mapToLong(Long::longValue).max().orElseThrow();
        try (Communicator pair = world.split(inPair ? 0 : Communicator.SPLIT_NOCOLOR, rank);
             Arena arena = Arena.ofShared()) {
            MemorySegment send = arena.allocate(maxBytes, 64);
            MemorySegment recv = arena.allocate(maxBytes, 64);
            for (long i = 0; i < maxBytes / 4; i++) {
                send.setAtIndex(ValueLayout.JAVA_FLOAT, i, rank + 1);
            }
            int[] calls = new int[sizes.size()];
            long wrong = 0;
            for (int s = 0; s < sizes.size(); s++) {
                long count = sizes.get(s) / 4;
                // warm-up (JIT, first touch) of both; the world's time per call then sets how many calls fill a phase
                if (pair != null) {
                    warmUp(pair, send, recv, count, phaseNs);
                    wrong += countWrong(recv, count, 2 + n / 2);
                }
                double t = warmUp(world, send, recv, count, phaseNs);
                wrong += countWrong(recv, count, n * (n + 1) / 2);
                calls[s] = callsFor(phaseNs, t);
            }
            JitQuiet.await(PerfRunner.JIT_QUIET_MS, PerfRunner.JIT_QUIET_MAX_MS);
            world.barrier();
            PairedSamples[] samples = new PairedSamples[sizes.size()];
            for (int s = 0; s < sizes.size(); s++) {
                samples[s] = new PairedSamples(rounds);
            }
            // two unrecorded rounds first: the phase loop's own code paths settle in the JIT
            for (int r = -WARMUP_ROUNDS; r < rounds; r++) {
                for (int s = 0; s < sizes.size(); s++) {
                    long count = sizes.get(s) / 4;
                    boolean pairFirst = (r + s) % 2 == 0;
                    double tp = 0;
                    double tw = 0;
                    for (int half = 0; half < 2; half++) {
                        world.barrier();
                        if (pairFirst == (half == 0)) {
                            if (pair != null) {
                                tp = avgOver(pair, phase(pair, send, recv, count, calls[s]));
                            }
                        } else {
                            tw = avgOver(world, phase(world, send, recv, count, calls[s]));
                        }
                    }
                    if (rank == 0 && r >= 0) {
                        samples[s].add(tp, tw);
                    }
                }
            }
            List<Row> rows = new ArrayList<>();
            for (int s = 0; s < sizes.size(); s++) {
                rows.add(new Row(sizes.get(s), calls[s], samples[s]));
            }
            long[] w = {wrong};
            world.allReduce(w, RedOp.SUM);
            return new Result(rows, w[0]);
        }
    }

    /** {@code calls} back-to-back allReduces once the ranks are aligned; returns ns per call on this rank. */
    private static double phase(Communicator c, MemorySegment send, MemorySegment recv, long count, int calls) {
        // ranks that slept through the other side's phase wake late: start together
        Settle.alignRanks(c::barrier, us -> maxOver(c, us));
        long t0 = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            c.allReduce(send, recv, count, DataType.FLOAT32, RedOp.SUM);
        }
        return (System.nanoTime() - t0) / (double) calls;
    }

    /**
     * Phases of about {@code phaseNs}, and of at least {@link #warmUpCalls} calls, until the time per call stops
     * improving ({@link Settle#untilFlat}, after at least {@link #MIN_WARMUP_PHASES}). The calls count, not the time:
     * until the JIT has compiled the reduction (the Vector API runs interpreted at a tiny fraction of its speed), a
     * 32 KiB call took 5-15 ms instead of 20-30 us, and phases sized by time alone ran three calls each and never got
     * there. The slowest rank's time decides, so every rank runs the same phases; returns it for the last phase, in
     * ns per call.
     */
    private static double warmUp(Communicator c, MemorySegment send, MemorySegment recv, long count, double phaseNs) {
        int least = warmUpCalls(count * 4);
        double first = maxOver(c, phase(c, send, recv, count, least));
        return Settle.untilFlat(MIN_WARMUP_PHASES, first,
                t -> maxOver(c, phase(c, send, recv, count, Math.max(least, callsFor(phaseNs, t)))));
    }

    /** The fewest calls of a warm-up phase: 1000 up to 32 KiB, fewer for larger sizes (4 at 8 MiB), at least 4. */
    static int warmUpCalls(long bytes) {
        return (int) Math.max(4, Math.min(1000, (32L << 20) / Math.max(1, bytes)));
    }

    /** Phases every warm-up runs at least. */
    private static final int MIN_WARMUP_PHASES = 5;

    /** Calls of {@code nsPerCall} that fill {@code budgetNs}: 3 to 1,000,000. */
    static int callsFor(double budgetNs, double nsPerCall) {
        return (int) Math.max(3, Math.min(1_000_000, budgetNs / Math.max(1, nsPerCall)));
    }

    private static double maxOver(Communicator c, double v) {
        double[] a = {v};
        c.allReduce(a, RedOp.MAX);
        return a[0];
    }

    /** The mean over the communicator's ranks (nccl-tests' default {@code -a 1}). */
    private static double avgOver(Communicator c, double v) {
        double[] a = {v};
        c.allReduce(a, RedOp.SUM);
        return a[0] / c.size();
    }

    /** Elements of {@code recv[0, count)} (floats) that are not {@code expected}. */
    public static long countWrong(MemorySegment recv, long count, float expected) {
        long bad = 0;
        for (long i = 0; i < count; i++) {
            if (recv.getAtIndex(ValueLayout.JAVA_FLOAT, i) != expected) {
                bad++;
            }
        }
        return bad;
    }

    /** Rank 0's table. */
    static void print(Result r, int nRanks, int rounds, double phaseMs, PrintStream out) {
        out.printf("# allReduce float sum, out of place: %d ranks against 2 of them (world ranks 0 and %d) in "
                + "alternating phases of one job, %d round(s), phases of ~%.0f ms%n", nRanks, nRanks / 2, rounds,
                        phaseMs);
        out.printf("# times are us per call (mean over the ranks of a phase), medians over the rounds; ratio: %d-rank "
                + "over 2-rank%n", nRanks);
        out.printf("# %10s %7s %11s %11s %9s %9s %9s %9s%n", "bytes", "calls", "2r_us", nRanks + "r_us",
                "ratio", "pair_p10", "pair_med", "pair_p90");
        for (Row row : r.rows()) {
            PairedSamples p = row.samples();
            out.printf("  %10d %7d %11.2f %11.2f %9.2f %9.2f %9.2f %9.2f%n", row.bytes(), row.callsPerPhase(),
                    p.referenceMedian() / 1e3, p.testMedian() / 1e3, p.ratioOfMedians(), p.pairedRatio(0.1),
                    p.pairedRatio(0.5), p.pairedRatio(0.9));
        }
        out.printf("# wrong elements: %d%n", r.wrongElements());
    }
}
