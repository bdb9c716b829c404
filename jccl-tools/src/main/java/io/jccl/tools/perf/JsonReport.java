package io.jccl.tools.perf;

import com.google.gson.GsonBuilder;
import io.jccl.Jccl;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code --json FILE} report: nccl-tests' JSON layout (config, devices, results with out_of_place/in_place
 * objects, out_of_bounds, average_bus_bandwidth), written with Gson when the run ends. The environment is left out
 * on purpose (it holds {@code JCCL_COMM_SECRET}). Built by rank 0's thread; mirrors nccl-tests' {@code util.cu}
 * JSON writer.
 */
public final class JsonReport {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
    private static final Pattern RANK_LINE = Pattern.compile(
            "#\\s+Rank\\s+(\\d+) Group\\s+(\\d+) Pid\\s+(\\d+) on\\s+(\\S+) device\\s+(\\d+) \\[([^]]*)] ?(.*)");

    private final Map<String, Object> root = new LinkedHashMap<>();
    private final List<Map<String, Object>> results = new ArrayList<>();
    private Map<String, Object> openRow;

    public JsonReport(PerfOptions o, ResultTable.RunHeader h, int nRanks, List<String> rankLines) {
        root.put("version", 2);
        root.put("tool", "jccl perf " + Jccl.version());
        root.put("start_time", LocalDateTime.now().format(TIME));
        root.put("args", o.args());
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("collective", o.collective().testName());
        config.put("nranks", nRanks);
        config.put("nthreads", h.nThreads());
        config.put("ngpus", h.nGpus());
        config.put("minimum_bytes", h.minBytes());
        config.put("maximum_bytes", h.maxBytes());
        config.put(h.stepIsFactor() ? "step_factor" : "step_bytes", h.step());
        config.put("warmup_iters", h.warmupIters());
        config.put("iterations", h.iters());
        config.put("aggregated_iterations", h.aggIters());
        config.put("validation", h.validation());
        config.put("graph", h.graph());
        config.put("register", h.register());
        config.put("blocking_collectives", o.blocking() != 0);
        root.put("config", config);
        root.put("devices", rankLines.stream().map(JsonReport::device).toList());
        root.put("results", results);
    }

    /** A rank line parsed back into its fields (as nccl-tests does), or the raw text when it does not parse. */
    static Map<String, Object> device(String line) {
        Map<String, Object> d = new LinkedHashMap<>();
        Matcher m = RANK_LINE.matcher(line);
        if (!m.matches()) {
            d.put("raw", line);
            return d;
        }
        d.put("rank", Integer.parseInt(m.group(1)));
        d.put("group", Integer.parseInt(m.group(2)));
        d.put("pid", Long.parseLong(m.group(3)));
        d.put("hostname", m.group(4));
        d.put("device", Integer.parseInt(m.group(5)));
        d.put("device_hex", m.group(6));
        d.put("device_info", m.group(7));
        return d;
    }

    /** Adds one placement; the out-of-place record of a row opens it, the in-place one completes it. */
    public void add(ResultRecord r) {
        if (!r.inPlace() || openRow == null) {
            openRow = new LinkedHashMap<>();
            openRow.put("size", r.sizeBytes());
            openRow.put("count", r.count());
            openRow.put("type", r.type());
            openRow.put("redop", r.redop());
            openRow.put("root", r.root());
            results.add(openRow);
        }
        Map<String, Object> cell = new LinkedHashMap<>();
        cell.put("time", r.timeUs());
        cell.put("alg_bw", r.algBwGBps());
        cell.put("bus_bw", r.busBwGBps());
        cell.put("nwrong", r.nWrong() < 0 ? null : r.nWrong());
        openRow.put(r.inPlace() ? "in_place" : "out_of_place", cell);
        if (r.inPlace()) {
            openRow = null;
        }
    }

    /** Records the footer values and writes the file. */
    public void write(Path file, int errors, double avgBusBw, double minBusBw) throws IOException {
        root.put("out_of_bounds", Map.of("count", errors, "okay", errors == 0));
        Map<String, Object> bw = new LinkedHashMap<>();
        bw.put("bandwidth", avgBusBw);
        bw.put("okay", minBusBw < 0 ? "unchecked" : avgBusBw >= minBusBw * 0.9);
        root.put("average_bus_bandwidth", bw);
        root.put("end_time", LocalDateTime.now().format(TIME));
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            new GsonBuilder().setPrettyPrinting().serializeNulls().serializeSpecialFloatingPointValues().create()
                    .toJson(root, w);
        }
    }
}
