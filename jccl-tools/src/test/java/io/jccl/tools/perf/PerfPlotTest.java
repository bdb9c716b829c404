package io.jccl.tools.perf;

import io.jccl.tools.plot.PlotMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code jccl perf --plot} and {@code jccl plot} over real perf JSON reports of the fake cluster. */
class PerfPlotTest {

    static Document svg(Path file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(file.toFile());
    }

    @Test
    void perfWritesAPlotWithOneLinePerPlacement(@TempDir Path dir) throws Exception {
        Path plot = dir.resolve("plots/ag.svg");
        PerfRunnerTest.Run r = PerfRunnerTest.run(2, -1, "all_gather", "-b", "1K", "-e", "64K", "-f", "4", "-n", "1",
                "-w", "0", "--plot", plot.toString());
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).startsWith("# Writing SVG plot to " + plot);
        Document d = svg(plot);
        assertThat(d.getDocumentElement().getLocalName()).isEqualTo("svg");
        NodeList lines = d.getElementsByTagNameNS("http://www.w3.org/2000/svg", "polyline");
        assertThat(lines.getLength()).isEqualTo(2);
        assertThat(lines.item(0).getAttributes().getNamedItem("points").getNodeValue().split(" ")).hasSize(4);
        String text = Files.readString(plot);
        assertThat(text).contains(">out-of-place</text>", ">in-place</text>", "all_gather_perf on 2 ranks",
                ">1K</text>", ">64K</text>", "bus bandwidth (GB/s)", "<title>out-of-place: 4096 bytes, ");
    }

    @Test
    void plotOverlaysSeveralReports(@TempDir Path dir) throws Exception {
        Path a = dir.resolve("jccl-2.json");
        Path b = dir.resolve("jccl-3.json");
        assertThat(PerfRunnerTest.run(2, -1, "all_reduce", "-b", "8", "-e", "8K", "-f", "8", "-n", "1", "-w", "0",
                "-J", a.toString()).exitCode()).isZero();
        assertThat(PerfRunnerTest.run(3, -1, "all_reduce", "-b", "8", "-e", "8K", "-f", "8", "-n", "1", "-w", "0",
                "-J", b.toString()).exitCode()).isZero();
        Path out = dir.resolve("cmp.svg");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PlotMain main = new PlotMain();
        int code = io.jccl.tools.Cli.commandLine(main).execute("-o", out.toString(), "--placement", "both",
                a.toString(), b + "=three ranks");
        assertThat(code).isZero();
        String text = Files.readString(out);
        assertThat(svg(out).getElementsByTagNameNS("http://www.w3.org/2000/svg", "polyline").getLength()).isEqualTo(4);
        assertThat(text).contains(">jccl-2 out-of-place</text>", ">three ranks in-place</text>",
                "all_reduce: bus bandwidth");
        assertThat(new String(bytes.toByteArray(), StandardCharsets.UTF_8)).isEmpty();
        int bad = io.jccl.tools.Cli.commandLine(new PlotMain()).setErr(new java.io.PrintWriter(new PrintStream(bytes,
                true, StandardCharsets.UTF_8), true)).execute("-o", out.toString(), dir.resolve("none.json").toString());
        assertThat(bad).isEqualTo(1);
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("none.json");
    }
}
