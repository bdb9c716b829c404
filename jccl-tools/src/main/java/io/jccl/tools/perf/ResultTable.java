package io.jccl.tools.perf;

import java.util.List;
import java.util.Locale;

/**
 * The text of a perf report, line by line, in nccl-tests' exact layout: the run header, one line per rank, the
 * two-level column header, one row per size (out-of-place then in-place cells) and the footer. Stateless; only
 * rank 0 prints what it returns. Mirrors nccl-tests' {@code writeDeviceReport}, {@code writeResultHeader},
 * {@code writeBenchmarkLine*} and {@code writeResultFooter}.
 */
public final class ResultTable {
    private ResultTable() {
    }

    /** The run parameters the header line shows ({@code register} is {@code -R}: 0, 1 or 2). */
    public record RunHeader(String programName, int nThreads, int nGpus, long minBytes, long maxBytes, long step,
                            boolean stepIsFactor, int warmupIters, int iters, int aggIters, int validation,
                            int graph, int register) {
    }

    /** The lines before the per-rank lines. */
    public static List<String> preamble(RunHeader h) {
        return List.of(
                "# Collective test starting: " + h.programName(),
                String.format(Locale.ROOT, "# nThread %d nGpus %d minBytes %d maxBytes %d step: %d(%s) warmup iters: %d"
                                + " iters: %d agg iters: %d validation: %d graph: %d register: %d",
                        h.nThreads(), h.nGpus(), h.minBytes(), h.maxBytes(), h.step(),
                        h.stepIsFactor() ? "factor" : "bytes", h.warmupIters(), h.iters(), h.aggIters(),
                        h.validation(), h.graph(), h.register()),
                "#",
                "# Using devices");
    }

    /** One rank's line, e.g. {@code #  Rank  0 Group  0 Pid  12345 on     node01 device  0 [host] AMD EPYC 7B13}. */
    public static String rankLine(int rank, int group, long pid, String host, int device, String busId, String name) {
        return String.format(Locale.ROOT, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s",
                rank, group, pid, host, device, busId, name);
    }

    /** The lines between the rank lines and the first row: a {@code #} line and the three header lines. */
    public static List<String> columnHeader() {
        String lead = String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s", "", "", "", "", "");
        return List.of(
                "#",
                lead + "           out-of-place                       in-place          ",
                String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s ",
                        "size", "count", "type", "redop", "root",
                        "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"),
                String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s ",
                        "(B)", "(elements)", "", "", "",
                        "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", ""));
    }

    /** The start of a row: size, count, type, redop ({@code none} when unused) and root ({@code -1} when unused). */
    public static String rowPrefix(long bytes, long count, String typeName, String opName, int root) {
        return String.format(Locale.ROOT, "%12d  %12d  %8s  %6s  %6s", bytes, count, typeName, opName,
                String.format(Locale.ROOT, "%6d", root));
    }

    /** One placement's four cells; {@code wrong < 0} or {@code !report} prints {@code N/A}. */
    public static String cell(double timeUs, double algBwGBps, double busBwGBps, long wrong, boolean report) {
        String head = "  " + CFormat.cell(timeUs, 7) + "  " + CFormat.cell(algBwGBps, 6) + "  "
                + CFormat.cell(busBwGBps, 6);
        return report && wrong >= 0 ? head + "  " + CFormat.pad(CFormat.general(wrong), 6) : head + "    N/A";
    }

    /**
     * The closing lines. {@code minBusBwGBps} is {@code NCCL_TESTS_MIN_BW} (negative when unset): the average then
     * reads OK or FAILED against 90% of it.
     */
    public static List<String> footer(int errors, double avgBusBwGBps, double minBusBwGBps, String programName) {
        String verdict = minBusBwGBps < 0 ? "" : avgBusBwGBps < minBusBwGBps * 0.9 ? "FAILED" : "OK";
        return List.of(
                String.format(Locale.ROOT, "# %-20s : %d %s", "Out of bounds values", errors, errors != 0 ? "FAILED"
                        : "OK"),
                String.format(Locale.ROOT, "# %-20s : %s %s", "Avg bus bandwidth", CFormat.general(avgBusBwGBps),
                        verdict),
                "#",
                "# Collective test concluded: " + programName,
                "#",
                "");
    }
}
