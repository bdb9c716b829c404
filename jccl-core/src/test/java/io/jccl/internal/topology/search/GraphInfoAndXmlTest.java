package io.jccl.internal.topology.search;

import io.jccl.JcclException;
import io.jccl.internal.topology.Fixtures;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.TopoSystem;
import io.jccl.internal.topology.xml.XmlElement;
import io.jccl.internal.topology.xml.XmlParser;
import io.jccl.internal.topology.xml.XmlWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GraphInfoAndXmlTest {

    @Test
    void mergeTakesMinChannelsAndBandwidthAndMaxTypes() {
        GraphInfo a = new GraphInfo(GraphPattern.RING, 12, true, 30, 30, PathType.NVL, PathType.PIX, 0, 0.5);
        GraphInfo b = new GraphInfo(GraphPattern.RING, 8, false, 40, 20, PathType.PXB, PathType.PHB, 2, 0.0);
        GraphInfo m = GraphInfo.merge(List.of(a, b));
        assertThat(m).isEqualTo(new GraphInfo(GraphPattern.RING, 8, false, 30, 20, PathType.PXB, PathType.PHB, 2, 0.5));
        assertThat(GraphInfo.merge(List.of(a))).isEqualTo(a);
        assertThat(GraphInfo.fromBytes(b.toBytes())).isEqualTo(b);
        assertThat(b.toBytes()).hasSize(GraphInfo.BYTES);
        assertThatThrownBy(() -> GraphInfo.merge(List.of())).isInstanceOf(JcclException.class);
    }

    @Test
    void dumpInNcclGraphFormatAndLoadBack(@TempDir Path dir) {
        TopoSystem s = Fixtures.system(Fixtures.TWO_GPU_NIC_NODE, true, TopoParams.defaults());
        TopoGraph ring = GraphSearch.compute(s, TopoParams.defaults(), 0, GraphPattern.RING, 1, 32);
        TopoGraph tree = GraphSearch.compute(s, TopoParams.defaults(), 1, GraphPattern.BALANCED_TREE, 1, 1);
        XmlElement xml = GraphXml.toXml(s, List.of(ring, tree));
        String text = XmlWriter.write(xml);
        assertThat(text).startsWith("<graphs version=\"1\">\n  <graph id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"1\""
                + " speedintra=\"12\" speedinter=\"12\" latencyinter=\"0\" typeintra=\"NVL\" typeinter=\"PXN\""
                + " samechannels=\"1\">\n    <channel>\n      <net dev=\"0\"/>\n      <gpu dev=\"0\"/>\n"
                + "      <gpu dev=\"1\"/>\n      <net dev=\"0\"/>\n    </channel>\n  </graph>\n");
        assertThat(text).contains("<graph id=\"1\" pattern=\"1\" crossnic=\"0\" nchannels=\"1\" speedintra=\"24\""
                + " speedinter=\"12\"");
        Path f = dir.resolve("graphs.xml");
        GraphXml.dump(s, List.of(ring, tree), f);
        TopoGraph back = GraphXml.load(f, s, 1, 1, 1);
        assertThat(back.toString()).isEqualTo(tree.toString());
        assertThat(back.channelRanks(0)).containsExactly(tree.channelRanks(0));
        assertThat(back.netIn(0)).isEqualTo(tree.netIn(0));
        assertThat(GraphXml.load(f, s, 7, 1, 1)).isNull();
    }

    @Test
    void badGraphFilesAreRejected() {
        TopoSystem s = Fixtures.system(Fixtures.NVLINK_PAIR, false, TopoParams.defaults());
        XmlElement wrongGpu = XmlParser.parse("<graphs version=\"1\"><graph id=\"0\" pattern=\"4\" typeintra=\"NVL\""
                + " typeinter=\"PIX\"><channel><gpu dev=\"0\"/><gpu dev=\"5\"/></channel></graph></graphs>", "g.xml");
        assertThatThrownBy(() -> GraphXml.fromXml(wrongGpu, s, 0, 1, 1)).hasMessageContaining("no GPU with dev 5");
        XmlElement tooFew = XmlParser.parse("<graphs version=\"1\"><graph id=\"0\" pattern=\"4\" typeintra=\"NVL\""
                + " typeinter=\"PIX\"><channel><gpu dev=\"0\"/></channel></graph></graphs>", "g.xml");
        assertThatThrownBy(() -> GraphXml.fromXml(tooFew, s, 0, 1, 1)).hasMessageContaining("channel has 1 GPUs");
        XmlElement badType = XmlParser.parse("<graphs version=\"1\"><graph id=\"0\" pattern=\"4\" typeintra=\"FAST\""
                + " typeinter=\"PIX\"/></graphs>", "g.xml");
        assertThatThrownBy(() -> GraphXml.fromXml(badType, s, 0, 1, 1)).hasMessageContaining("'FAST' is not a path type");
    }
}
