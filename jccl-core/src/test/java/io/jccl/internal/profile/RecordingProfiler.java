package io.jccl.internal.profile;

import io.jccl.Profiler;
import io.jccl.internal.comm.InitPhase;

import java.util.ArrayList;
import java.util.List;

/** A profiler plugin that remembers every callback (also the service named by the test fixture). */
public final class RecordingProfiler implements Profiler {
    /** One stop callback. */
    public record Stop(Object token, Operation op, long durationNs, Throwable error, String thread) {
    }

    private final List<Operation> started = new ArrayList<>();
    private final List<Stop> stopped = new ArrayList<>();
    private final List<InitPhase> phases = new ArrayList<>();

    @Override
    public synchronized Object start(Operation op) {
        started.add(op);
        return "token-" + op.commId() + "-" + op.rank() + "-" + op.seq();
    }

    @Override
    public synchronized void stop(Object token, Operation op, long durationNs, Throwable error) {
        stopped.add(new Stop(token, op, durationNs, error, Thread.currentThread().getName()));
    }

    @Override
    public synchronized void initPhase(InitPhase phase) {
        phases.add(phase);
    }

    public synchronized List<Operation> started() {
        return List.copyOf(started);
    }

    public synchronized List<Stop> stopped() {
        return List.copyOf(stopped);
    }

    public synchronized List<InitPhase> phases() {
        return List.copyOf(phases);
    }
}
