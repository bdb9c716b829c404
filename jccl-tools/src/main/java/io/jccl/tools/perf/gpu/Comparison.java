package io.jccl.tools.perf.gpu;

import io.jccl.tools.perf.ResultRecord;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The side-by-side table of a {@code --backend both} run: for every row both libraries measured (same size, type,
 * reduction and root), JCCL's and NCCL's time and bus bandwidth out of place and in place, and the ratio NCCL time /
 * JCCL time (above 1: JCCL is faster). Stateless.
 */
final class Comparison {
    private Comparison() {
    }

    static List<String> lines(String ncclVersion, List<ResultRecord> jccl, List<ResultRecord> nccl) {
        Map<String, ResultRecord> byKey = new HashMap<>();
        for (ResultRecord r : nccl) {
            byKey.put(key(r), r);
        }
        List<String> out = new ArrayList<>();
        out.add("#");
        out.add("# JCCL vs NCCL " + ncclVersion + ", same process, buffers and streams; time in us, busbw in GB/s,"
                + " ratio = NCCL time / JCCL time");
        out.add(String.format(Locale.ROOT, "# %10s %12s %8s %6s %4s | %9s %9s %6s %7s %7s | %9s %9s %6s | %s",
                "size(B)", "count", "type", "redop", "root", "jccl oop", "nccl oop", "ratio", "j busbw", "n busbw",
                "jccl ip", "nccl ip", "ratio", "#wrong j/n"));
        for (int i = 0; i < jccl.size(); i++) {
            ResultRecord j = jccl.get(i);
            if (j.inPlace()) {
                continue;
            }
            ResultRecord n = byKey.get(key(j));
            ResultRecord jIp = i + 1 < jccl.size() && jccl.get(i + 1).inPlace() ? jccl.get(i + 1) : null;
            ResultRecord nIp = jIp == null ? null : byKey.get(key(jIp));
            out.add(String.format(Locale.ROOT, "%12d %12d %8s %6s %4d | %9.2f %9s %6s %7.2f %7s | %9s %9s %6s | %s/%s",
                    j.sizeBytes(), j.count(), j.type(), j.redop(), j.root(), j.timeUs(), time(n), ratio(j, n),
                    j.busBwGBps(), n == null ? "-" : String.format(Locale.ROOT, "%.2f", n.busBwGBps()), time(jIp),
                    time(nIp), ratio(jIp, nIp), wrong(j), wrong(n)));
        }
        return out;
    }

    static void print(PrintStream ps, String ncclVersion, List<ResultRecord> jccl, List<ResultRecord> nccl) {
        lines(ncclVersion, jccl, nccl).forEach(ps::println);
        ps.flush();
    }

    private static String key(ResultRecord r) {
        return r.sizeBytes() + "/" + r.type() + "/" + r.redop() + "/" + r.root() + "/" + r.inPlace();
    }

    private static String time(ResultRecord r) {
        return r == null ? "-" : String.format(Locale.ROOT, "%.2f", r.timeUs());
    }

    private static String ratio(ResultRecord j, ResultRecord n) {
        return j == null || n == null || j.timeUs() <= 0 ? "-" : String.format(Locale.ROOT, "%.2fx",
                n.timeUs() / j.timeUs());
    }

    private static String wrong(ResultRecord r) {
        return r == null ? "-" : r.nWrong() < 0 ? "N/A" : Long.toString(r.nWrong());
    }
}
