package io.jccl.tools.plot;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SvgPlotTest {

    @Test
    void pointsLandWhereTheAxesSay() throws Exception {
        Series s = new Series("a<b", List.of(new Series.Point(1L << 20, 10), new Series.Point(1024, 0),
                new Series.Point(1L << 30, 20)));
        String svg = SvgPlot.render("t & u", List.of(s));
        javax.xml.parsers.DocumentBuilder b = DocumentBuilderFactory.newInstance().newDocumentBuilder();
        b.parse(new java.io.ByteArrayInputStream(svg.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertThat(svg).contains("t &amp; u", "a&lt;b", ">1K</text>", ">1M</text>", ">1G</text>", ">20</text>");
        String points = svg.substring(svg.indexOf("points=\"") + 8);
        points = points.substring(0, points.indexOf('"'));
        String[] p = points.split(" ");
        assertThat(p).hasSize(3);
        double[] x = new double[3];
        double[] y = new double[3];
        for (int i = 0; i < 3; i++) {
            x[i] = Double.parseDouble(p[i].split(",")[0]);
            y[i] = Double.parseDouble(p[i].split(",")[1]);
        }
        assertThat(x[0]).isEqualTo(80.0);
        assertThat(x[2]).isEqualTo(960 - 250.0);
        assertThat(x[1]).isCloseTo((x[0] + x[2]) / 2, org.assertj.core.data.Offset.offset(0.2));
        assertThat(y[0]).isEqualTo(560 - 70.0);
        assertThat(y[2]).isEqualTo(60.0);
        assertThat(y[1]).isCloseTo((y[0] + y[2]) / 2, org.assertj.core.data.Offset.offset(0.2));
    }

    @Test
    void niceTicksAndSizeLabels() {
        assertThat(SvgPlot.niceStep(23)).isEqualTo(5);
        assertThat(SvgPlot.niceStep(370)).isEqualTo(100);
        assertThat(SvgPlot.niceStep(0.9)).isEqualTo(0.2);
        assertThat(SvgPlot.size(8)).isEqualTo("8");
        assertThat(SvgPlot.size(65536)).isEqualTo("64K");
        assertThat(SvgPlot.size(3L << 30)).isEqualTo("3G");
        assertThat(SvgPlot.render("empty", List.of())).contains("<svg").endsWith("</svg>\n");
    }

    @Test
    void perfJsonOfNcclTestsLayoutGivesOneSeriesPerPlacement(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("nccl.json");
        Files.writeString(f, """
                {"config": {"collective": "all_reduce"}, "results": [
                  {"size": 8, "count": 2, "type": "float", "redop": "sum", "root": -1,
                   "out_of_place": {"time": 10.0, "alg_bw": 0.0, "bus_bw": 0.01, "nwrong": 0},
                   "in_place": {"time": 9.0, "alg_bw": 0.0, "bus_bw": 0.02, "nwrong": 0}},
                  {"size": 1024, "count": 256, "type": "float", "redop": "sum", "root": -1,
                   "out_of_place": {"time": 12.0, "alg_bw": 0.1, "bus_bw": 0.2, "nwrong": 0},
                   "in_place": {"time": 11.0, "alg_bw": 0.1, "bus_bw": 0.3, "nwrong": 0}}]}
                """);
        List<Series> both = PerfJson.read(f, "NCCL", List.of("out_of_place", "in_place"));
        assertThat(both).extracting(Series::label).containsExactly("NCCL out-of-place", "NCCL in-place");
        assertThat(both.get(1).points()).containsExactly(new Series.Point(8, 0.02), new Series.Point(1024, 0.3));
        Files.writeString(dir.resolve("bad.json"), "{\"x\": 1}");
        assertThatThrownBy(() -> PerfJson.read(dir.resolve("bad.json"), "x", List.of("in_place")))
                .hasMessageContaining("not a perf JSON report");
    }
}
