package io.jccl.cuda.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes an NCCL_GRAPH_FILE (NCCL's graph XML) whose ring graph has one channel per given ring of CUDA devices. */
public final class RingGraphFile {
    private RingGraphFile() {
    }

    /** {@code dir/graph.xml} with the rings (device numbers in ring order), for NCCL_GRAPH_FILE. */
    public static Path write(Path dir, int[]... rings) throws IOException {
        StringBuilder b = new StringBuilder("<graphs version=\"1\">\n  <graph id=\"0\" pattern=\"4\" crossnic=\"0\""
                + " nchannels=\"" + rings.length + "\" speedintra=\"20\" speedinter=\"20\" latencyinter=\"0\""
                + " typeintra=\"NVL\" typeinter=\"PIX\" samechannels=\"0\">\n");
        for (int[] ring : rings) {
            b.append("    <channel>");
            for (int dev : ring) {
                b.append("<gpu dev=\"").append(dev).append("\"/>");
            }
            b.append("</channel>\n");
        }
        b.append("  </graph>\n</graphs>\n");
        return Files.writeString(dir.resolve("graph.xml"), b);
    }
}
