package io.jccl.tools.perf;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Rank 0's output: prints the nccl-tests table as the run progresses (a row's prefix first, then each placement's
 * cells as soon as they are measured) and feeds the optional JSON and CSV reports, written at the end.
 * Owned by rank 0's thread; the other ranks have none. Mirrors nccl-tests' {@code PRINT} on the main thread.
 */
public final class PerfReport {
    private final PrintStream out;
    private final PerfOptions options;
    private JsonReport json;
    private final CsvReport csv;
    private final java.util.List<ResultRecord> plotted = new java.util.ArrayList<>();
    private String plotTitle;
    private final String collective;
    private final List<ResultRecord> records = new ArrayList<>();
    private long rowBytes;
    private long rowCount;
    private String rowType;
    private String rowOp;
    private int rowRoot;

    public PerfReport(PrintStream out, PerfOptions options) {
        this.out = out;
        this.options = options;
        this.csv = options.csvFile() != null ? new CsvReport() : null;
        this.collective = options.collective().testName();
    }

    /** Prints everything up to the first row. */
    public void begin(ResultTable.RunHeader header, int nRanks, List<String> rankLines) {
        plotTitle = header.programName() + " on " + nRanks + " rank" + (nRanks == 1 ? "" : "s") + " ("
                + HostInfo.hostName() + "): bus bandwidth";
        if (options.jsonFile() != null) {
            out.println("# Writing JSON output to " + options.jsonFile());
            json = new JsonReport(options, header, nRanks, rankLines);
        }
        if (options.plotFile() != null) {
            out.println("# Writing SVG plot to " + options.plotFile());
        }
        ResultTable.preamble(header).forEach(out::println);
        rankLines.forEach(out::println);
        ResultTable.columnHeader().forEach(out::println);
        out.flush();
    }

    /** Starts a row. */
    public void rowStart(long bytes, long count, String type, String op, int root) {
        rowBytes = bytes;
        rowCount = count;
        rowType = type;
        rowOp = op;
        rowRoot = root;
        out.print(ResultTable.rowPrefix(bytes, count, type, op, root));
        out.flush();
    }

    /** Adds one placement's cells to the current row. */
    public void cell(boolean inPlace, double timeUs, BandwidthModel.Bandwidth bw, long wrong, boolean reportWrong) {
        out.print(ResultTable.cell(timeUs, bw.algBwGBps(), bw.busBwGBps(), wrong, reportWrong));
        out.flush();
        ResultRecord r = new ResultRecord(collective, rowBytes, rowCount, rowType, rowOp, rowRoot, inPlace, timeUs,
                bw.algBwGBps(), bw.busBwGBps(), reportWrong ? wrong : -1);
        records.add(r);
        if (json != null) {
            json.add(r);
        }
        if (csv != null) {
            csv.add(r);
        }
        if (options.plotFile() != null) {
            plotted.add(r);
        }
    }

    /** Ends the current row. */
    public void rowEnd() {
        out.println();
        out.flush();
    }

    /** Every cell measured so far, in order. */
    public List<ResultRecord> records() {
        return List.copyOf(records);
    }

    /** Prints the footer and writes the JSON and CSV files. */
    public void end(int errors, double avgBusBw, double minBusBw) {
        ResultTable.footer(errors, avgBusBw, minBusBw, options.collective().programName()).forEach(out::println);
        out.flush();
        try {
            if (json != null) {
                json.write(options.jsonFile(), errors, avgBusBw, minBusBw);
            }
            if (csv != null) {
                csv.write(options.csvFile());
            }
            if (options.plotFile() != null) {
                io.jccl.tools.plot.PlotMain.write(options.plotFile(), io.jccl.tools.plot.SvgPlot.render(plotTitle,
                        PlotSeries.of(plotted)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the perf report: " + e.getMessage()
                    + "; check that the directory exists and is writable", e);
        }
    }
}
