package io.jccl.internal.comm;

import io.jccl.Profiler;
import io.jccl.internal.algorithm.Ring;
import io.jccl.internal.debug.EnvReport;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.profile.InitPhaseEvent;
import io.jccl.internal.profile.JfrGate;
import io.jccl.internal.profile.Profilers;
import io.jccl.internal.transport.Transport;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Follows one rank's communicator creation: at the start, the once-per-process report (version, parameters) and
 * NCCL's "Init START" line; at the end of each {@link InitPhase}, a JFR {@link InitPhaseEvent} and the profiler
 * plugins' {@code initPhase}; at completion, the INFO summary ({@link InitLog}), the phase times on the
 * communicator's probe, its JMX registration and an {@code INIT} event spanning everything.
 *
 * <p>Owned by: the initialising thread. Mirrors: NCCL's INIT log lines and its profiler's init events.
 */
final class InitTrace {
    private final String commId;
    private final int rank;
    private final int nRanks;
    private final long startNs;
    private long markNs;
    private final InitPhaseEvent whole;
    private InitPhaseEvent phaseEvent;
    private final Map<String, Long> phaseNs = new LinkedHashMap<>();

    private InitTrace(String commId, int rank, int nRanks) {
        this.commId = commId;
        this.rank = rank;
        this.nRanks = nRanks;
        this.whole = started();
        this.phaseEvent = started();
        this.startNs = System.nanoTime();
        this.markNs = startNs;
    }

    /** Creation of {@code commId}'s rank {@code rank} begins. */
    public static InitTrace begin(String commId, int rank, int nRanks) {
        EnvReport.atFirstInit(rank);
        Log.info(Subsys.INIT, rank, "comm %s rank %d nRanks %d - Init START", commId, rank, nRanks);
        return new InitTrace(commId, rank, nRanks);
    }

    /** Phase {@code p} just ended. */
    public void phase(InitPhase p) {
        long now = System.nanoTime();
        long ns = now - markNs;
        markNs = now;
        phaseNs.put(p.name(), ns);
        commit(phaseEvent, p.name());
        phaseEvent = started();
        List<Profiler> profilers = Profilers.active();
        if (!profilers.isEmpty()) {
            Profiler.InitPhase ip = new Profiler.InitPhase(commId, rank, nRanks, p.name(), ns);
            for (Profiler pr : profilers) {
                try {
                    pr.initPhase(ip);
                } catch (RuntimeException e) {
                    Profilers.failed(pr, "initPhase", e);
                }
            }
        }
        Log.trace(Subsys.INIT, rank, "comm %s init phase %s took %.2f ms", commId, p, ns / 1e6);
    }

    /** Creation succeeded: logs the summary, records the times, registers the MXBean. */
    public void complete(CommRuntime rt, PeerInfo[] peers, Ring[] rings, Transport[] byPeer) {
        long total = System.nanoTime() - startNs;
        InitLog.print(rt, peers, rings, byPeer);
        rt.probe().initDone(total, phaseNs);
        rt.probe().registerJmx();
        commit(whole, "INIT");
    }

    /** Nanoseconds per finished phase, in order. */
    public Map<String, Long> phaseNanos() {
        return new LinkedHashMap<>(phaseNs);
    }

    private static InitPhaseEvent started() {
        if (!JfrGate.on()) {
            return null;
        }
        InitPhaseEvent e = new InitPhaseEvent();
        if (!e.isEnabled()) {
            return null;
        }
        e.begin();
        return e;
    }

    private void commit(InitPhaseEvent e, String phase) {
        if (e != null && e.shouldCommit()) {
            e.place(commId, rank, nRanks);
            e.phase = phase;
            e.commit();
        }
    }
}
