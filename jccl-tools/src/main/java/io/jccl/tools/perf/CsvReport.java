package io.jccl.tools.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code --csv FILE} report: one line per measured placement with a header line, for spreadsheets and plots.
 * Every field is a number or a token without commas, so no quoting is needed. Built by rank 0's thread; JCCL's own
 * (nccl-tests' CSV output was dropped in favour of JSON).
 */
public final class CsvReport {
    /** The header line. */
    public static final String HEADER =
            "collective,size_bytes,count,type,redop,root,placement,time_us,algbw_gbps,busbw_gbps,nwrong";

    private final List<String> lines = new ArrayList<>(List.of(HEADER));

    /** Adds one placement. */
    public void add(ResultRecord r) {
        lines.add(line(r));
    }

    /** The CSV line of one placement ({@code nwrong} empty when not checked). */
    public static String line(ResultRecord r) {
        return String.format(Locale.ROOT, "%s,%d,%d,%s,%s,%d,%s,%s,%s,%s,%s", r.collective(), r.sizeBytes(),
                r.count(), r.type(), r.redop(), r.root(), r.inPlace() ? "in-place" : "out-of-place",
                CFormat.general(r.timeUs(), 9), CFormat.general(r.algBwGBps(), 9), CFormat.general(r.busBwGBps(), 9),
                r.nWrong() < 0 ? "" : Long.toString(r.nWrong()));
    }

    /** Writes every line to {@code file}. */
    public void write(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }
}
