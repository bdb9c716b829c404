package io.jccl.internal.topology.xml;

import io.jccl.JcclException;
import io.jccl.Result;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Writes an element tree in NCCL's dump layout: two spaces of indentation per level, attributes in insertion order,
 * empty elements self-closed. The output parses back with {@link XmlParser} to an equal tree.
 *
 * <p>Stateless.
 */
public final class XmlWriter {
    private XmlWriter() {
    }

    public static String write(XmlElement root) {
        StringBuilder sb = new StringBuilder();
        write(root, 0, sb);
        return sb.toString();
    }

    /** Writes to a file; failure is a SYSTEM_ERROR naming the file and the setting that asked for it. */
    public static void writeFile(XmlElement root, Path file, String setting) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, write(root), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "cannot write " + setting + " file " + file + ": "
                    + e.getMessage(), e);
        }
    }

    private static void write(XmlElement e, int depth, StringBuilder sb) {
        sb.append("  ".repeat(depth)).append('<').append(e.name());
        for (Map.Entry<String, String> a : e.attributes().entrySet()) {
            sb.append(' ').append(a.getKey()).append("=\"").append(escape(a.getValue())).append('"');
        }
        if (e.children().isEmpty()) {
            sb.append("/>\n");
            return;
        }
        sb.append(">\n");
        for (XmlElement c : e.children()) {
            write(c, depth + 1, sb);
        }
        sb.append("  ".repeat(depth)).append("</").append(e.name()).append(">\n");
    }

    static String escape(String v) {
        StringBuilder sb = new StringBuilder(v.length());
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                default -> {
                    if (c < 0x20 && c != '\t') {
                        sb.append("&#").append((int) c).append(';');
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
