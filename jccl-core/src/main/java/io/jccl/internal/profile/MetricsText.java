package io.jccl.internal.profile;

import io.jccl.Collective;
import io.jccl.internal.tuning.AlgoKind;
import io.jccl.internal.tuning.Protocol;

import java.util.List;
import java.util.Locale;

/**
 * The {@code /metrics} page: every communicator rank's counters in the Prometheus text exposition format 0.0.4,
 * one family per metric with its HELP and TYPE lines, every sample labelled with the communicator id
 * ({@code comm}) and {@code rank}:
 * <ul>
 *   <li>{@code jccl_calls_total}, {@code jccl_bytes_total}, {@code jccl_seconds_total}: counters per
 *       {@code collective}, {@code algorithm} and {@code protocol};</li>
 *   <li>{@code jccl_errors_total}: failed calls;</li>
 *   <li>{@code jccl_communicator_failed}, {@code jccl_lost_ranks}, {@code jccl_rank_lost{peer}},
 *       {@code jccl_communicator_ranks}, {@code jccl_init_seconds}: gauges.</li>
 * </ul>
 *
 * <p>Owned by: built per request. Mirrors: the Prometheus output of NCCL's Inspector plugin.
 */
final class MetricsText {
    private MetricsText() {
    }

    static String format(List<CommProbe> probes) {
        StringBuilder sb = new StringBuilder(1024 + 512 * probes.size());
        cells(sb, probes, "jccl_calls_total", "collective calls, per collective, algorithm and protocol", 0);
        cells(sb, probes, "jccl_bytes_total", "payload bytes of the calls (count times element size)", 1);
        cells(sb, probes, "jccl_seconds_total", "time from each call to its completion on this rank, in seconds", 2);
        family(sb, probes, "jccl_errors_total", "counter", "calls that failed");
        for (CommProbe p : probes) {
            sample(sb, "jccl_errors_total", p).append(' ').append(p.counters().failures()).append('\n');
        }
        family(sb, probes, "jccl_communicator_failed", "gauge", "1 when the communicator has failed, else 0");
        for (CommProbe p : probes) {
            sample(sb, "jccl_communicator_failed", p).append(' ').append(p.failure() == null ? 0 : 1).append('\n');
        }
        family(sb, probes, "jccl_communicator_ranks", "gauge", "ranks of the communicator");
        for (CommProbe p : probes) {
            sample(sb, "jccl_communicator_ranks", p).append(' ').append(p.nRanks()).append('\n');
        }
        family(sb, probes, "jccl_lost_ranks", "gauge", "ranks of the communicator known to be gone");
        boolean anyLost = false;
        for (CommProbe p : probes) {
            int n = p.lostRanks().length;
            anyLost |= n > 0;
            sample(sb, "jccl_lost_ranks", p).append(' ').append(n).append('\n');
        }
        if (anyLost) {
            family(sb, probes, "jccl_rank_lost", "gauge", "1 for each peer rank known to be gone");
            for (CommProbe p : probes) {
                for (int peer : p.lostRanks()) {
                    labels(sb.append("jccl_rank_lost"), p).setLength(sb.length() - 1);
                    sb.append(",peer=\"").append(peer).append("\"} 1\n");
                }
            }
        }
        family(sb, probes, "jccl_init_seconds", "gauge", "time the communicator's creation took, in seconds");
        for (CommProbe p : probes) {
            sample(sb, "jccl_init_seconds", p).append(' ').append(number(p.initMillis() / 1e3)).append('\n');
        }
        return sb.toString();
    }

    /** One family of per-cell counters: {@code which} 0 calls, 1 bytes, 2 seconds. */
    private static void cells(StringBuilder sb, List<CommProbe> probes, String name, String help, int which) {
        int start = sb.length();
        family(sb, probes, name, "counter", help);
        int header = sb.length();
        for (CommProbe p : probes) {
            p.counters().forEachCell((Collective c, AlgoKind a, Protocol pr, long calls, long bytes, long nanos) -> {
                labels(sb.append(name), p).setLength(sb.length() - 1);
                sb.append(",collective=\"").append(c.ncclName()).append("\",algorithm=\"").append(a.name())
                        .append("\",protocol=\"").append(pr.name()).append("\"} ");
                sb.append(which == 0 ? Long.toString(calls) : which == 1 ? Long.toString(bytes)
                        : number(nanos / 1e9)).append('\n');
            });
        }
        if (sb.length() == header) {
            sb.setLength(start);
        }
    }

    private static void family(StringBuilder sb, List<CommProbe> probes, String name, String type, String help) {
        if (!probes.isEmpty()) {
            sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
            sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
        }
    }

    private static StringBuilder sample(StringBuilder sb, String name, CommProbe p) {
        return labels(sb.append(name), p);
    }

    private static StringBuilder labels(StringBuilder sb, CommProbe p) {
        sb.append("{comm=\"");
        escape(sb, p.commId());
        return sb.append("\",rank=\"").append(p.rank()).append("\"}");
    }

    /** A label value: backslash, double quote and newline escaped, as the format requires. */
    static StringBuilder escape(StringBuilder sb, String v) {
        for (int i = 0; i < v.length(); i++) {
            char ch = v.charAt(i);
            switch (ch) {
                case '\\' -> sb.append("\\\\");
                case '"' -> sb.append("\\\"");
                case '\n' -> sb.append("\\n");
                default -> sb.append(ch);
            }
        }
        return sb;
    }

    private static String number(double v) {
        return String.format(Locale.ROOT, "%.9g", v);
    }
}
