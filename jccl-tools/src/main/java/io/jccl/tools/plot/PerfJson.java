package io.jccl.tools.plot;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the {@code results} of a perf JSON report ({@code jccl perf --json}, or nccl-tests' own JSON output, which
 * has the same layout) into plot series: one per placement, and per type/reduction/root when the run swept several.
 * Stateless; used on the main thread of {@code jccl plot}.
 */
public final class PerfJson {
    private PerfJson() {
    }

    /**
     * The series of one report.
     *
     * @param file       the JSON file
     * @param label      prefix of every series label (e.g. the backend: {@code NCCL}, {@code JCCL})
     * @param placements which placements to take: {@code out_of_place}, {@code in_place} or both
     */
    public static List<Series> read(Path file, String label, List<String> placements) throws IOException {
        JsonObject root;
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            JsonElement e = JsonParser.parseReader(r);
            if (!e.isJsonObject() || !e.getAsJsonObject().has("results")) {
                throw new IOException(file + " is not a perf JSON report (no \"results\" array)");
            }
            root = e.getAsJsonObject();
        } catch (com.google.gson.JsonParseException e) {
            throw new IOException(file + " is not valid JSON: " + e.getMessage(), e);
        }
        Map<String, List<Series.Point>> byKey = new LinkedHashMap<>();
        List<String> combos = new ArrayList<>();
        for (JsonElement el : root.getAsJsonArray("results")) {
            JsonObject row = el.getAsJsonObject();
            String combo = text(row, "type") + " " + text(row, "redop") + rootText(row);
            if (!combos.contains(combo)) {
                combos.add(combo);
            }
            for (String placement : placements) {
                JsonElement cell = row.get(placement);
                if (cell == null || !cell.isJsonObject() || cell.getAsJsonObject().get("bus_bw") == null
                        || cell.getAsJsonObject().get("bus_bw").isJsonNull()) {
                    continue;
                }
                byKey.computeIfAbsent(placement + "|" + combo, k -> new ArrayList<>()).add(new Series.Point(
                        row.get("size").getAsLong(), cell.getAsJsonObject().get("bus_bw").getAsDouble()));
            }
        }
        List<Series> out = new ArrayList<>();
        byKey.forEach((key, points) -> {
            String[] parts = key.split("\\|", 2);
            String name = label + " " + parts[0].replace('_', '-') + (combos.size() > 1 ? " " + parts[1] : "");
            out.add(new Series(name.strip(), points));
        });
        return out;
    }

    private static String text(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e == null || e.isJsonNull() ? "" : e.getAsString();
    }

    private static String rootText(JsonObject o) {
        JsonElement e = o.get("root");
        return e == null || e.isJsonNull() || e.getAsInt() < 0 ? "" : " root " + e.getAsInt();
    }
}
