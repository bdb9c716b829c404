package io.jccl.internal.topology.xml;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

class XmlParserTest {

    @ParameterizedTest
    @ValueSource(strings = {Fixtures.DGX_H100, Fixtures.PCIE_2SOCKET, Fixtures.NVLINK_PAIR, Fixtures.TWO_GPU_NIC_NODE,
        Fixtures.NCCL_2XH200})
    void writeThenParseGivesTheSameTree(String fixture) {
        XmlElement a = Fixtures.xml(fixture);
        String text = XmlWriter.write(a);
        XmlElement b = XmlParser.parse(text, "rewritten");
        assertThat(TopoXml.sameTree(a, b)).isTrue();
        assertThat(XmlWriter.write(b)).isEqualTo(text);
    }

    @Test
    void dumpFileRoundTrip(@TempDir Path dir) {
        XmlElement a = Fixtures.xml(Fixtures.DGX_H100);
        Path out = dir.resolve("sub/dump.xml");
        TopoXml.dump(a, out);
        XmlElement b = TopoXml.load(out);
        assertThat(TopoXml.sameTree(a, b)).isTrue();
        assertThat(b.descendants("gpu")).hasSize(8);
        assertThat(b.descendants("nvlink")).hasSize(32);
    }

    @Test
    void entitiesAreDecodedAndEscapedBack() {
        XmlElement e = XmlParser.parse("<system name=\"a&amp;b &lt;c&gt; &quot;d&quot; &#65;&#x42;\" q='it&apos;s'/>",
                "t");
        assertThat(e.attr("name")).isEqualTo("a&b <c> \"d\" AB");
        assertThat(e.attr("q")).isEqualTo("it's");
        XmlElement again = XmlParser.parse(XmlWriter.write(e), "t2");
        assertThat(again.attr("name")).isEqualTo(e.attr("name"));
        assertThat(again.attr("q")).isEqualTo("it's");
    }

    @Test
    void declarationAndCommentsAreSkipped() {
        XmlElement e = XmlParser.parse("<?xml version=\"1.0\"?>\n<!-- c -->\n<system version=\"1\">\n <!-- inner -->\n"
                + " <cpu numaid=\"0\"/>\n</system>\n<!-- tail -->\n", "t");
        assertThat(e.children("cpu")).hasSize(1);
        assertThat(e.child("cpu").line()).isEqualTo(5);
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "``                                           | empty document",
        "`<system version=\"1\">`                     | is not closed",
        "`<system><cpu></system>`                     | does not match <cpu>",
        "`<system a=1/>`                              | must be quoted",
        "`<system a=\"1\" a=\"2\"/>`                  | duplicate attribute a",
        "`<system>text</system>`                      | no text content",
        "`<!DOCTYPE x><system/>`                      | DTD",
        "`<system/><other/>`                          | after the root element",
        "`<system a=\"&foo;\"/>`                      | unknown entity",
        "`<system a=\"1\"`                            | end of file",
        "`<system a=\"1\"b=\"2\"/>`                   | expected whitespace",
        "`</system>`                                  | without an open element",
        "`<1system/>`                                 | expected element name",
        "`<system a=\"<\"/>`                          | '<' inside the value",
        "`<system><!-- never closed </system>`        | unterminated comment",
        "`<?xml version=\"1.0\"`                      | unterminated",
    })
    void malformedDocumentsAreInvalidArgumentWithPosition(String doc, String problem) {
        assertThatThrownBy(() -> XmlParser.parse(doc, "bad.xml"))
                .isInstanceOfSatisfying(JcclException.class, e -> {
                    assertThat(e.result()).isEqualTo(Result.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).startsWith("bad.xml:").contains(problem);
                    assertThat(e.getMessage()).matches("bad\\.xml:\\d+:\\d+: .*");
                });
    }

    @Test
    void errorLineAndColumnPointAtTheProblem() {
        String doc = "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:01:00.0\">\n  </cpu>\n";
        assertThatThrownBy(() -> XmlParser.parse(doc, "f.xml"))
                .hasMessageContaining("f.xml:4:3:").hasMessageContaining("</cpu> does not match <pci> opened on line 3");
    }

    @Test
    void missingFileIsInvalidArgumentNamingIt(@TempDir Path dir) {
        Path missing = dir.resolve("nope.xml");
        assertThatThrownBy(() -> TopoXml.load(missing)).isInstanceOfSatisfying(JcclException.class, e -> {
            assertThat(e.result()).isEqualTo(Result.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains(missing.toString()).contains("NCCL_TOPO_FILE");
        });
    }

    @Test
    void graphFileGivenAsTopologyIsExplained(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("g.xml");
        Files.writeString(f, "<graphs version=\"1\"/>");
        assertThatThrownBy(() -> TopoXml.load(f)).hasMessageContaining("expected <system>")
                .hasMessageContaining("NCCL_GRAPH_FILE");
    }

    @Test
    void everyTruncationIsRejectedCleanly() throws Exception {
        String full = Files.readString(Fixtures.path(Fixtures.TWO_GPU_NIC_NODE), StandardCharsets.UTF_8);
        int end = full.lastIndexOf("</system>") + "</system>".length();
        for (int len = 0; len < end; len++) {
            String cut = full.substring(0, len);
            try {
                XmlParser.parse(cut, "cut");
                fail("a document cut at " + len + " of " + end + " characters parsed");
            } catch (JcclException e) {
                assertThat(e.result()).isEqualTo(Result.INVALID_ARGUMENT);
                assertThat(e.getMessage()).startsWith("cut:");
            }
        }
    }

    @Test
    void randomGarbageAndMutationsNeverEscapeAsOtherExceptions() throws Exception {
        String full = Files.readString(Fixtures.path(Fixtures.PCIE_2SOCKET), StandardCharsets.UTF_8);
        Random rnd = new Random(42);
        int parsed = 0;
        int rejected = 0;
        for (int i = 0; i < 3000; i++) {
            String doc;
            if (i % 3 == 0) {
                byte[] b = new byte[rnd.nextInt(200)];
                rnd.nextBytes(b);
                doc = new String(b, StandardCharsets.ISO_8859_1);
            } else {
                char[] c = full.toCharArray();
                for (int m = 0; m < 1 + rnd.nextInt(3); m++) {
                    c[rnd.nextInt(c.length)] = "<>/=\"' a0x9.-&;:\n".charAt(rnd.nextInt(17));
                }
                doc = new String(c);
            }
            try {
                XmlElement root = XmlParser.parse(doc, "fuzz");
                // Whatever parses must also build or be refused with INVALID_ARGUMENT.
                SystemBuilder.build(root);
                parsed++;
            } catch (JcclException e) {
                assertThat(e.result()).as(e.getMessage()).isIn(Result.INVALID_ARGUMENT);
                rejected++;
            }
        }
        assertThat(parsed).isPositive();
        assertThat(rejected).isPositive();
    }
}
