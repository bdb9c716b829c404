package io.jccl.cuda.bench;

import io.jccl.cuda.CudaEvent;
import io.jccl.cuda.CudaStream;

import java.util.Arrays;

/**
 * Times a collective on several GPUs with CUDA events: per repetition, a start event on every stream, {@code iters}
 * back-to-back calls, an end event on every stream; the repetition's time per call is the slowest GPU's
 * (end − start) / iters, and the result is the median over repetitions. Host launch time per call is measured
 * around the issuing loop. Same method for JCCL and NCCL, so the ratio is fair.
 *
 * <p>Thread: the benchmark's main thread. Mirrors nccl-tests' timing loop (which uses a host timer).
 */
final class EventTimer implements AutoCloseable {
    /** Median time per call in µs on the GPUs, and host time per call spent issuing it. */
    record Timing(double gpuUs, double hostUs) {
    }

    private final CudaStream[] streams;
    private final CudaEvent[] start;
    private final CudaEvent[] end;

    EventTimer(CudaStream[] streams) {
        this.streams = streams;
        this.start = new CudaEvent[streams.length];
        this.end = new CudaEvent[streams.length];
        for (int g = 0; g < streams.length; g++) {
            start[g] = CudaEvent.create(streams[g].device(), true);
            end[g] = CudaEvent.create(streams[g].device(), true);
        }
    }

    Timing time(Runnable op, int warmup, int iters, int reps) {
        for (int i = 0; i < warmup; i++) {
            op.run();
        }
        for (CudaStream s : streams) {
            s.synchronize();
        }
        double[] gpu = new double[reps];
        double[] host = new double[reps];
        for (int r = 0; r < reps; r++) {
            for (int g = 0; g < streams.length; g++) {
                start[g].record(streams[g]);
            }
            long t0 = System.nanoTime();
            for (int i = 0; i < iters; i++) {
                op.run();
            }
            long t1 = System.nanoTime();
            for (int g = 0; g < streams.length; g++) {
                end[g].record(streams[g]);
            }
            double worst = 0;
            for (int g = 0; g < streams.length; g++) {
                end[g].synchronize();
                worst = Math.max(worst, CudaEvent.elapsedMillis(start[g], end[g]));
            }
            gpu[r] = worst * 1000.0 / iters;
            host[r] = (t1 - t0) / 1000.0 / iters;
        }
        return new Timing(median(gpu), median(host));
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    @Override
    public void close() {
        for (int g = 0; g < streams.length; g++) {
            start[g].close();
            end[g].close();
        }
    }
}
