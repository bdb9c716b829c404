package io.jccl.internal.tuning;

import io.jccl.Collective;

import java.util.Locale;

/**
 * Human-readable tuning: the model's latency/bandwidth table in NCCL's layout, and for one operation every candidate
 * with its predicted time, or the reason it was not usable, and the choice.
 *
 * <p>Pure functions of their arguments.
 */
public final class TuningReport {
    private TuningReport() {
    }

    /** "lat/bw" per collective × (Tree, Ring) × protocol, as NCCL prints with NCCL_DEBUG_SUBSYS=TUNING. */
    public static String table(ModelTable t) {
        StringBuilder sb = new StringBuilder();
        Algorithm[] algos = {Algorithm.TREE, Algorithm.RING};
        sb.append(String.format(Locale.ROOT, "%13s |", "Algorithm"));
        for (Algorithm a : algos) {
            for (Protocol p : Protocol.values()) {
                sb.append(String.format(Locale.ROOT, " %15s |", a.ncclName() + "/" + p.ncclName()));
            }
        }
        sb.append('\n');
        for (int f = 0; f < AlgoProtoFilter.FUNCS.length; f++) {
            sb.append(String.format(Locale.ROOT, "%13s |", AlgoProtoFilter.FUNCS[f].ncclName()));
            for (Algorithm a : algos) {
                for (Protocol p : Protocol.values()) {
                    boolean on = t.enabled(f, a, p);
                    sb.append(String.format(Locale.ROOT, " %6.1f/%8.1f |", on ? t.latUs(f, a, p) : 0.0,
                            on ? t.bwGBps(f, a, p) : 0.0));
                }
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** The decision for one operation and every candidate considered. */
    public static String selection(ModelChoice s) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s %d bytes -> %s/%s, %d channel%s x %d threads, predicted %.2f us%s%n",
                s.collective().ncclName(), s.nBytes(), s.algorithm().ncclName(), s.protocol().ncclName(),
                s.nChannels(), s.nChannels() == 1 ? "" : "s", s.nThreads(), s.timeUs(),
                s.forced() ? " (restricted by NCCL_ALGO/NCCL_PROTO)" : ""));
        sb.append(String.format(Locale.ROOT, "   %-20s %12s %10s %11s%n", "candidate", "time(us)", "lat(us)",
                "bw(GB/s)"));
        for (Candidate c : s.candidates()) {
            boolean chosen = c.algorithm() == s.algorithm() && c.protocol() == s.protocol();
            String name = c.algorithm().ncclName() + "/" + c.protocol().ncclName();
            if (c.usable()) {
                sb.append(String.format(Locale.ROOT, " %s %-20s %12.2f %10.2f %11.1f%n", chosen ? "*" : " ", name,
                        c.timeUs(), c.latUs(), c.bwGBps()));
            } else {
                sb.append(String.format(Locale.ROOT, "   %-20s %12s  disabled: %s%n", name, "-", c.disabledBy()));
            }
        }
        return sb.toString();
    }

    /** Explains a (collective, bytes) pair with this tuner, including collectives the model does not tune. */
    public static String explain(Tuner tuner, Collective coll, long nBytes) {
        if (!Tuner.tuned(coll)) {
            return coll.ncclName() + " " + nBytes + " bytes: not chosen by the cost model; it runs as point-to-point"
                    + " sends and receives on the p2p channels\n";
        }
        return selection(tuner.select(coll, nBytes, 1));
    }
}
