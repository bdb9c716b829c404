package io.jccl.tools.perf.gpu;

import io.jccl.cuda.CudaEvent;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.internal.enqueue.ComputeProbe;
import io.jccl.tools.perf.RankStats;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code jccl perf --compute-beside}: after each timed loop, the loop again with a compute kernel beside it, to show
 * how much of the GPU the collective leaves to compute, as a training step overlaps the two ({@code NCCL_CTA_POLICY=2}
 * puts allGather, allToAll and broadcast into windows on the copy engines, taking no SM). Rank 0 times
 * {@link ComputeProbe} alone, with enough rounds to last about as long as the loop, then every rank runs the loop
 * while rank 0's GPU runs the probe on a stream of its own, started together. A row: the loop's time alone and
 * beside, the probe's alone and beside, the time until both were done, and how much of the shorter one was hidden
 * (100%: both ran as if alone; 0%: one after the other).
 *
 * <p>Thread: the rank's thread (rank 0 holds the probe and the rows; other ranks only run the loop).
 */
final class ComputeBeside implements AutoCloseable {
    /** Rounds of the first, calibrating probe launch. */
    static final long FIRST_ROUNDS = 4096;
    private static final long MAX_ROUNDS = 1L << 26;

    /** One size's measurement, times in ms. */
    record Row(long bytes, double loopMs, double loopBesideMs, double probeMs, double probeBesideMs, double bothMs) {
        /** How much of the shorter of the two was hidden by running them together, 0 to 1. */
        double hidden() {
            double h = (loopMs + probeMs - bothMs) / Math.min(loopMs, probeMs);
            return Math.max(0, Math.min(1, h));
        }
    }

    private final RankStats stats;
    private final CudaStream stream;
    private final ComputeProbe probe;
    private final CudaStream side;
    private final CudaEvent ref;
    private final CudaEvent loopEnd;
    private final CudaEvent probeStart;
    private final CudaEvent probeEnd;
    private final List<Row> rows = new ArrayList<>();
    private long rounds;

    /** Rank 0's GPU gets the probe; every rank's loops are timed on {@code stream}. */
    ComputeBeside(GpuCommunicator comm, CudaStream stream, RankStats stats) {
        this.stats = stats;
        this.stream = stream;
        boolean mine = comm.rank() == 0;
        this.probe = mine ? new ComputeProbe(comm.device()) : null;
        this.side = mine ? CudaStream.create(comm.device()) : null;
        this.ref = mine ? CudaEvent.create(comm.device(), true) : null;
        this.loopEnd = mine ? CudaEvent.create(comm.device(), true) : null;
        this.probeStart = mine ? CudaEvent.create(comm.device(), true) : null;
        this.probeEnd = mine ? CudaEvent.create(comm.device(), true) : null;
    }

    /**
     * Runs {@code loop} (the timed calls, which took {@code loopMs} alone) again beside the probe; every rank calls
     * this after the same timed loop.
     */
    void measure(long bytes, double loopMs, Runnable loop) {
        if (probe == null) {
            stats.barrier();
            loop.run();
            stream.synchronize();
            return;
        }
        long first = rounds > 0 ? rounds : FIRST_ROUNDS;
        double firstMs = probeAlone(first);
        rounds = Math.max(1, Math.min(MAX_ROUNDS, Math.round(first * loopMs / Math.max(1e-3, firstMs))));
        double probeMs = rounds == first ? firstMs : probeAlone(rounds);
        stats.barrier();
        ref.record(side);
        stream.waitFor(ref);
        loop.run();   // the calls first, as a step queues its collective before the compute beside it
        loopEnd.record(stream);
        probeStart.record(side);
        probe.launch(side, rounds);
        probeEnd.record(side);
        probeEnd.synchronize();
        loopEnd.synchronize();
        double toLoopEnd = CudaEvent.elapsedMillis(ref, loopEnd);
        double toProbeEnd = CudaEvent.elapsedMillis(ref, probeEnd);
        rows.add(new Row(bytes, loopMs, toLoopEnd, probeMs, CudaEvent.elapsedMillis(probeStart, probeEnd),
                Math.max(toLoopEnd, toProbeEnd)));
    }

    private double probeAlone(long r) {
        probeStart.record(side);
        probe.launch(side, r);
        probeEnd.record(side);
        probeEnd.synchronize();
        return CudaEvent.elapsedMillis(probeStart, probeEnd);
    }

    /** Prints rank 0's rows as a table under a line naming the probe. */
    void print(PrintStream out, String what) {
        if (probe == null || rows.isEmpty()) {
            return;
        }
        out.printf(Locale.ROOT, "# Compute beside %s: jccl_compute_probe on GPU %d (%d blocks of %d threads, one "
                + "wave), launched on its own stream with the timed calls%n", what, probe.device().ordinal(),
                probe.blocks(), ComputeProbe.THREADS);
        out.printf(Locale.ROOT, "# %12s %12s %12s %12s %12s %12s %8s%n", "size", "calls ms", "beside ms",
                "compute ms", "beside ms", "both ms", "hidden");
        for (Row r : rows) {
            out.printf(Locale.ROOT, "  %12d %12.3f %12.3f %12.3f %12.3f %12.3f %7.0f%%%n", r.bytes(), r.loopMs(),
                    r.loopBesideMs(), r.probeMs(), r.probeBesideMs(), r.bothMs(), 100 * r.hidden());
        }
        out.flush();
    }

    @Override
    public void close() {
        if (probe != null) {
            ref.close();
            loopEnd.close();
            probeStart.close();
            probeEnd.close();
            side.close();
            probe.close();
        }
    }
}
