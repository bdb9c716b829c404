package io.jccl.tools.plot;

import io.jccl.Jccl;
import io.jccl.tools.Cli;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code jccl plot [-o F.svg] REPORT.json[=LABEL]...}: bus bandwidth against size for several perf JSON reports in
 * one SVG, one line per report (and placement), e.g. JCCL against NCCL, or one backend at several rank counts.
 * Runs on the main thread.
 */
@Command(name = "jccl plot", mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = io.jccl.tools.JcclVersion.class,
        description = {"Plots bus bandwidth against message size from perf JSON reports (jccl perf --json, or "
                + "nccl-tests' JSON output) into one SVG file that a browser shows.",
                "Each REPORT may carry a label: results/nccl.json=NCCL (default: the file name)."})
public final class PlotMain implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "REPORT[=LABEL]", description = "perf JSON reports")
    List<String> reports = new ArrayList<>();

    @Option(names = {"-o", "--output"}, defaultValue = "busbw.svg",
            description = "SVG file to write (default ${DEFAULT-VALUE})")
    Path output;

    @Option(names = "--placement", defaultValue = "out", description = "out, in or both (default ${DEFAULT-VALUE})")
    String placement;

    @Option(names = "--title", description = "title of the plot (default: the first report's collective)")
    String title;

    private PrintStream out = System.out;

    public static void main(String[] args) {
        System.exit(Cli.commandLine(new PlotMain()).execute(args));
    }

    @Override
    public Integer call() throws IOException {
        List<String> placements = switch (placement) {
            case "out" -> List.of("out_of_place");
            case "in" -> List.of("in_place");
            case "both" -> List.of("out_of_place", "in_place");
            default -> throw new IllegalArgumentException("--placement must be out, in or both, not " + placement);
        };
        List<Series> series = new ArrayList<>();
        String collective = null;
        for (String r : reports) {
            int eq = r.lastIndexOf('=');
            Path file = Path.of(eq > 0 ? r.substring(0, eq) : r);
            String label = eq > 0 ? r.substring(eq + 1) : file.getFileName().toString().replaceFirst("\\.json$", "");
            series.addAll(PerfJson.read(file, label, placements));
            if (collective == null) {
                collective = collectiveOf(file);
            }
        }
        String t = title != null ? title : (collective == null ? "bus bandwidth" : collective) + ": bus bandwidth";
        write(output, SvgPlot.render(t, series));
        out.println("jccl plot: wrote " + series.size() + " line(s) to " + output);
        return 0;
    }

    /** Writes {@code svg} to {@code file}, creating its directory. */
    public static void write(Path file, String svg) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, svg, StandardCharsets.UTF_8);
    }

    private static String collectiveOf(Path file) {
        try {
            var root = com.google.gson.JsonParser.parseString(Files.readString(file)).getAsJsonObject();
            return root.getAsJsonObject("config").get("collective").getAsString();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** For tests. */
    PlotMain withOut(PrintStream stream) {
        this.out = stream;
        return this;
    }
}
