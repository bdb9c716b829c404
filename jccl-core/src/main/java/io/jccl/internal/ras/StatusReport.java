package io.jccl.internal.ras;

import io.jccl.internal.ras.RasMessages.PeerStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * The text a status query answers: for each communicator this process belongs to, one line per rank (alive or
 * not, last completed operation, current operation and what it waits for) and a diagnosis of a stuck operation
 * (which ranks have not reached it, which ranks the waiting ones wait for). Owned by: built per query.
 * Mirrors: the report of NCCL's RAS client ({@code ncclras}).
 */
final class StatusReport {
    private StatusReport() {
    }

    /** One rank as seen from the reporting rank; {@code status} is null when nothing was heard from it yet. */
    public record Row(int rank, String host, long pid, String state, PeerStatus status) {
    }

    /** One communicator as seen from {@code rank}; {@code failure} is null while it is healthy. */
    public record Comm(String id, String name, int rank, int nRanks, String failure, Row[] rows) {
    }

    /** The whole answer for the communicators of this process. */
    public static String format(long pid, String host, List<Comm> comms) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "JCCL status from pid %d on %s: %d communicator(s)%n", pid, host,
                comms.size()));
        for (Comm c : comms) {
            sb.append('\n');
            format(sb, c);
        }
        return sb.toString();
    }

    static void format(StringBuilder sb, Comm c) {
        sb.append(String.format(Locale.ROOT, "Communicator %s%s: %d ranks, seen from rank %d: %s%n", c.id(),
                c.name() == null ? "" : " (" + c.name() + ")", c.nRanks(), c.rank(),
                c.failure() == null ? "healthy" : "FAILED: " + c.failure()));
        sb.append(String.format(Locale.ROOT, "  %-5s %-20s %-8s %-18s %-10s %-26s %s%n", "rank", "host", "pid", "state",
                "last done", "current op", "waiting for"));
        for (Row r : c.rows()) {
            PeerStatus s = r.status();
            String done = s == null ? "?" : Long.toString(s.completedSeq());
            String cur = s == null ? "?" : s.inFlight()
                    ? s.op().ncclName() + " seq " + s.issuedSeq() + " (" + s.inFlightMs() + " ms)" : "-";
            String wait = s == null || !s.inFlight() || s.waitingFor().isEmpty() ? "" : s.waitingFor();
            sb.append(String.format(Locale.ROOT, "  %-5d %-20s %-8d %-18s %-10s %-26s %s%n", r.rank(), r.host(),
                    r.pid(),
                    r.state(), done, cur, wait));
        }
        for (String line : diagnose(c)) {
            sb.append("  ").append(line).append('\n');
        }
    }

    /** Which operation is stuck, who has not reached it, and which ranks its waiters name. */
    static List<String> diagnose(Comm c) {
        List<String> out = new ArrayList<>();
        long maxIssued = -1;
        for (Row r : c.rows()) {
            if (r.status() != null && r.status().inFlight()) {
                maxIssued = Math.max(maxIssued, r.status().issuedSeq());
            }
        }
        if (maxIssued < 0) {
            return out;
        }
        TreeSet<Integer> behind = new TreeSet<>();
        TreeSet<Integer> unknown = new TreeSet<>();
        TreeSet<Integer> awaited = new TreeSet<>();
        for (Row r : c.rows()) {
            PeerStatus s = r.status();
            if (s == null) {
                unknown.add(r.rank());
            } else if (s.issuedSeq() < maxIssued) {
                behind.add(r.rank());
            }
            if (s != null && s.inFlight() && s.issuedSeq() == maxIssued) {
                awaited.addAll(ranksNamed(s.waitingFor(), r.rank(), c.nRanks()));
            }
        }
        out.add("operation seq " + maxIssued + " is in flight"
                + (behind.isEmpty() ? "" : "; ranks " + behind + " have not issued it yet")
                + (unknown.isEmpty() ? "" : "; no status from ranks " + unknown)
                + (awaited.isEmpty() ? "" : "; its waiting ranks wait for ranks " + awaited));
        return out;
    }

    /** Ranks a wait description names ("... receiving from rank 3 ..."), other than the waiter itself. */
    static List<Integer> ranksNamed(String wait, int self, int nRanks) {
        List<Integer> r = new ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("rank (\\d{1,7})").matcher(wait);
        while (m.find()) {
            int p = Integer.parseInt(m.group(1));
            if (p != self && p < nRanks) {
                r.add(p);
            }
        }
        return r;
    }
}
