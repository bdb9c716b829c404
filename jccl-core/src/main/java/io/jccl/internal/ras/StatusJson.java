package io.jccl.internal.ras;

import io.jccl.internal.ras.RasMessages.PeerStatus;

import java.util.List;

/**
 * The status view as JSON (the metrics endpoint's {@code /status}, the status port's {@code json} command,
 * {@code ./jccl ras --json}): the same facts as {@link StatusReport}'s text, one object per communicator with one
 * object per rank. A small writer of its own, so the core needs no JSON library.
 *
 * <p>Owned by: built per query. Mirrors: the JSON output of NCCL's RAS client ({@code ncclras -f json}).
 */
public final class StatusJson {
    private StatusJson() {
    }

    /** The whole answer for the communicators of this process. */
    static String format(long pid, String host, List<StatusReport.Comm> comms) {
        StringBuilder sb = new StringBuilder(256 + 256 * comms.size());
        sb.append("{\"pid\":").append(pid).append(",\"host\":");
        quote(sb, host);
        sb.append(",\"communicators\":[");
        for (int i = 0; i < comms.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            comm(sb, comms.get(i));
        }
        return sb.append("]}\n").toString();
    }

    private static void comm(StringBuilder sb, StatusReport.Comm c) {
        sb.append("{\"id\":");
        quote(sb, c.id());
        sb.append(",\"name\":");
        quote(sb, c.name());
        sb.append(",\"rank\":").append(c.rank()).append(",\"nRanks\":").append(c.nRanks())
                .append(",\"healthy\":").append(c.failure() == null).append(",\"failure\":");
        quote(sb, c.failure());
        sb.append(",\"ranks\":[");
        StatusReport.Row[] rows = c.rows();
        for (int i = 0; i < rows.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            row(sb, rows[i]);
        }
        sb.append("],\"diagnosis\":[");
        List<String> d = StatusReport.diagnose(c);
        for (int i = 0; i < d.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            quote(sb, d.get(i));
        }
        sb.append("]}");
    }

    private static void row(StringBuilder sb, StatusReport.Row r) {
        sb.append("{\"rank\":").append(r.rank()).append(",\"host\":");
        quote(sb, r.host());
        sb.append(",\"pid\":").append(r.pid()).append(",\"state\":");
        quote(sb, r.state());
        PeerStatus s = r.status();
        if (s != null) {
            sb.append(",\"completedSeq\":").append(s.completedSeq()).append(",\"issuedSeq\":").append(s.issuedSeq())
                    .append(",\"inFlight\":").append(s.inFlight());
            if (s.inFlight()) {
                sb.append(",\"currentOp\":");
                quote(sb, s.op().ncclName());
                sb.append(",\"inFlightMs\":").append(s.inFlightMs()).append(",\"waitingFor\":");
                quote(sb, s.waitingFor());
            }
        }
        sb.append('}');
    }

    /** Appends {@code s} as a JSON string (null as {@code null}), escaping quotes, backslashes and controls. */
    public static StringBuilder quote(StringBuilder sb, String s) {
        if (s == null) {
            return sb.append("null");
        }
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (ch < 0x20 || ch == 0x2028 || ch == 0x2029) {
                        sb.append(String.format("\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
                }
            }
        }
        return sb.append('"');
    }
}
