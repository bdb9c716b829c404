package io.jccl.tools.topo;

import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.topology.xml.TopoXml;
import io.jccl.internal.topology.xml.XmlParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class TopoMainTest {
    private static final String PAIR = """
            <system version="1">
              <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="207">
                <pci busid="0000:06:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
                  <gpu dev="0" sm="90" gdr="1"><nvlink target="0000:07:00.0" count="18" tclass="0x030200"/></gpu>
                </pci>
                <pci busid="0000:07:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
                  <gpu dev="1" sm="90" gdr="1"><nvlink target="0000:06:00.0" count="18" tclass="0x030200"/></gpu>
                </pci>
              </cpu>
            </system>
            """;

    private record Run(int code, String out, String err) {
    }

    private static Run run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = TopoMain.run(args, new PrintWriter(out, true), new PrintWriter(err, true), TopoEnv.of(env));
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void explainsAndDumps(@TempDir Path dir) throws IOException {
        Path topo = dir.resolve("pair.xml");
        Files.writeString(topo, PAIR);
        Path graphs = dir.resolve("graphs.xml");
        Path dump = dir.resolve("topo.xml");
        Run r = run(Map.of(), "--topo-file", topo.toString(), "--explain", "allreduce:4M", "allgather:64K",
                "--dump-graph", graphs.toString(), "--dump-topo", dump.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("2 ranks on 1 node")
                .contains("Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, type NVL/PIX")
                .contains("24 channels")
                .contains("AllReduce 4194304 bytes -> Ring/Simple, 24 channels")
                .contains("AllGather 65536 bytes ->")
                .contains("graphs written to " + graphs);
        var g = XmlParser.parseFile(graphs);
        assertThat(g.children("graph")).hasSize(2);
        assertThat(g.children("graph").get(0).attr("nchannels")).isEqualTo("12");
        // the dumped topology carries the ranks the tool gave the GPUs
        assertThat(TopoXml.gpus(TopoXml.load(dump))).allSatisfy(e -> assertThat(e.has("rank")).isTrue());
    }

    @Test
    void environmentSettingsApply(@TempDir Path dir) throws IOException {
        Path topo = dir.resolve("pair.xml");
        Files.writeString(topo, PAIR);
        Run r = run(Map.of("NCCL_ALGO", "tree", "NCCL_MAX_NCHANNELS", "4"), "--topo-file", topo.toString(),
                "--explain", "allreduce:1G");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("4 channels").contains("-> Tree/Simple")
                .contains("restricted by NCCL_ALGO/NCCL_PROTO").contains("excluded by NCCL_ALGO=\"tree\"");
    }

    @Test
    void multiNodeAndHostModel(@TempDir Path dir) throws IOException {
        Path topo = dir.resolve("pair.xml");
        Files.writeString(topo, PAIR);
        Run r = run(Map.of(), "--topo-file", topo.toString(), "--nranks", "4", "--ranks-per-node", "1", "--host",
                "--explain", "allreduce:8");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("4 ranks on 4 nodes").contains("JCCL host cost model");
    }

    @Test
    void errorsAreOneLineAndExitOne(@TempDir Path dir) {
        Run missing = run(Map.of(), "--topo-file", dir.resolve("nope.xml").toString());
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).startsWith("topo: INVALID_ARGUMENT: cannot read XML file").contains("nope.xml");
        Run badExplain = run(Map.of(), "--topo-file", dir.resolve("nope.xml").toString(), "--explain", "x");
        assertThat(badExplain.code()).isEqualTo(1);
        Run badOption = run(Map.of(), "--frobnicate");
        assertThat(badOption.code()).isNotZero();
        assertThat(badOption.err()).contains("Unknown option");
        Run help = run(Map.of(), "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("--topo-file").contains("--explain");
    }
}
