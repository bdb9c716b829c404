package io.jccl.tools.perf;

import io.jccl.tools.plot.Series;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a run's measured placements into plot lines: out-of-place and in-place, and per type/reduction/root when
 * the run swept several. Stateless; used by rank 0's {@link PerfReport} for {@code --plot}.
 */
final class PlotSeries {
    private PlotSeries() {
    }

    static List<Series> of(List<ResultRecord> records) {
        List<String> combos = new ArrayList<>();
        for (ResultRecord r : records) {
            String c = combo(r);
            if (!combos.contains(c)) {
                combos.add(c);
            }
        }
        Map<String, List<Series.Point>> lines = new LinkedHashMap<>();
        for (ResultRecord r : records) {
            String label = (r.inPlace() ? "in-place" : "out-of-place") + (combos.size() > 1 ? " " + combo(r) : "");
            lines.computeIfAbsent(label, k -> new ArrayList<>()).add(new Series.Point(r.sizeBytes(), r.busBwGBps()));
        }
        List<Series> out = new ArrayList<>();
        lines.forEach((label, points) -> out.add(new Series(label, points)));
        return out;
    }

    private static String combo(ResultRecord r) {
        return r.type() + " " + r.redop() + (r.root() >= 0 ? " root " + r.root() : "");
    }
}
