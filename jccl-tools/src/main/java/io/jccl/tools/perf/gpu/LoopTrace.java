package io.jccl.tools.perf.gpu;

import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaEvent;
import io.jccl.cuda.CudaStream;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;

/**
 * Stall diagnosis for the timed loops of {@code jccl perf} on GPUs, off unless asked for:
 * <ul>
 *   <li>{@code -Djccl.perf.trace=host}: adds nothing to the stream; prints, per loop and rank, the JVM uptime, the
 *       host time of the JIT warm-up, of the gap before the loop, of enqueueing, and until the end event completed,
 *       beside the GPU time;</li>
 *   <li>{@code segments}: two more events per loop (after the first call and after half the calls) and the GPU time
 *       of each part;</li>
 *   <li>{@code calls}: one event per call; reports the calls that took far longer than the loop's median, with the
 *       host time of their launch (the extra events cost a little time per call, so timings are not comparable);</li>
 *   <li>{@code -Djccl.perf.alignLoops=true}: a host barrier of the ranks between each warm-up and its timed loop;
 *       {@code -Djccl.perf.queryAfterLaunch=true}: cuStreamQuery (which also submits pending work) after every timed
 *       call.</li>
 * </ul>
 * Lines go to stderr and start with {@code # jccl perf}.
 *
 * <p>Thread: the rank's thread (one instance per rank).
 */
final class LoopTrace implements AutoCloseable {
    /** What {@code -Djccl.perf.trace} asks for. */
    enum Mode { NONE, HOST, SEGMENTS, CALLS }

    static final Mode MODE = mode(io.jccl.internal.param.InternalProperties.PERF_TRACE.get());
    static final boolean ALIGN_LOOPS = io.jccl.internal.param.InternalProperties.PERF_ALIGN_LOOPS.get();
    static final boolean QUERY_AFTER_LAUNCH = io.jccl.internal.param.InternalProperties.PERF_QUERY_AFTER_LAUNCH.get();

    private final CudaDevice device;
    private final CudaStream stream;
    private final String who;
    private CudaEvent[] events = new CudaEvent[0];
    private long[] hostNs = new long[0];

    /** @param who the rank as the lines name it, e.g. "rank 0 (JCCL)" */
    LoopTrace(CudaDevice device, CudaStream stream, String who) {
        this.device = device;
        this.stream = stream;
        this.who = who;
    }

    static Mode mode(String value) {
        try {
            return value.isBlank() ? Mode.NONE : Mode.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            System.err.println("# jccl perf: -Djccl.perf.trace=" + value + " is not host, segments or calls; ignored");
            return Mode.NONE;
        }
    }

    /** Whether this mode times the loop itself ({@link #timeCalls} or {@link #timeSegments}). */
    static boolean replacesLoop(int iters) {
        return MODE == Mode.CALLS || (MODE == Mode.SEGMENTS && iters >= 4);
    }

    /** {@code host}: one line per loop. Times are System.nanoTime() values. */
    void host(String what, long enteredNs, long warmedNs, long loopNs, long enqueuedNs, double gpuMs) {
        if (MODE == Mode.HOST) {
            System.err.printf(Locale.ROOT, "# jccl perf host: %.3f s: %s %s: warm-up %.3f ms, gap %.3f ms, enqueue"
                            + " %.3f ms, until done %.3f ms; GPU %.3f ms%n",
                    ManagementFactory.getRuntimeMXBean().getUptime() / 1e3, who, what, (warmedNs - enteredNs) / 1e6,
                    (loopNs - warmedNs) / 1e6, (enqueuedNs - loopNs) / 1e6, (System.nanoTime() - loopNs) / 1e6, gpuMs);
        }
    }

    /** {@code calls}: the loop with one event per call; returns its GPU time in ms. */
    double timeCalls(Runnable issue, int iters, String what) {
        events(iters + 1);
        events[0].record(stream);
        hostNs[0] = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            issue.run();
            events[i + 1].record(stream);
            hostNs[i + 1] = System.nanoTime();
        }
        events[iters].synchronize();
        double[] gpuMs = new double[iters];
        for (int i = 0; i < iters; i++) {
            gpuMs[i] = CudaEvent.elapsedMillis(events[i], events[i + 1]);
        }
        double[] sorted = gpuMs.clone();
        Arrays.sort(sorted);
        double median = sorted[iters / 2];
        for (int i = 0; i < iters; i++) {
            if (gpuMs[i] > 1.0 && gpuMs[i] > 20 * median) {
                System.err.printf(Locale.ROOT, "# jccl perf trace: %s %s: call %d of %d took %.3f ms on the GPU"
                                + " (median %.4f ms); its launch took %.3f ms on the host, %.3f ms after the loop "
                                        + "began%n",
                        who, what, i, iters, gpuMs[i], median, (hostNs[i + 1] - hostNs[i]) / 1e6,
                        (hostNs[i] - hostNs[0]) / 1e6);
            }
        }
        return CudaEvent.elapsedMillis(events[0], events[iters]);
    }

    /** {@code segments}: the loop between {@code start} and {@code end} with two more events; returns its GPU ms. */
    double timeSegments(Runnable issue, int iters, String what, long enteredNs, CudaEvent start, CudaEvent end) {
        events(2);
        long gapStart = System.nanoTime();
        start.record(stream);
        long t0 = System.nanoTime();
        issue.run();
        events[0].record(stream);
        for (int i = 1; i < iters; i++) {
            issue.run();
            if (i == iters / 2) {
                events[1].record(stream);
            }
        }
        long loopNs = System.nanoTime() - t0;
        end.record(stream);
        end.synchronize();
        double totalMs = CudaEvent.elapsedMillis(start, end);
        System.err.printf(Locale.ROOT, "# jccl perf segments: %s %s: before the loop %.3f ms on the host (start record"
                        + " %.3f ms); loop %.3f ms on the host; GPU: first call %.3f ms, calls 1..%d %.3f ms, the rest"
                        + " %.3f ms, total %.3f ms%n", who, what, (gapStart - enteredNs) / 1e6, (t0 - gapStart) / 1e6,
                loopNs / 1e6, CudaEvent.elapsedMillis(start, events[0]), iters / 2,
                CudaEvent.elapsedMillis(events[0], events[1]), CudaEvent.elapsedMillis(events[1], end), totalMs);
        return totalMs;
    }

    private void events(int n) {
        if (events.length < n) {
            CudaEvent[] grown = Arrays.copyOf(events, n);
            for (int i = events.length; i < n; i++) {
                grown[i] = CudaEvent.create(device, true);
            }
            events = grown;
            hostNs = new long[n];
        }
    }

    @Override
    public void close() {
        for (CudaEvent e : events) {
            e.close();
        }
    }
}
