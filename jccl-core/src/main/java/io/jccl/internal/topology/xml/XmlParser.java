package io.jccl.internal.topology.xml;

import io.jccl.JcclException;
import io.jccl.Result;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A strict parser for the XML subset NCCL writes and reads (topology and graph dumps): an optional {@code <?xml?>}
 * declaration, comments, elements with single- or double-quoted attributes, the five predefined entities and numeric
 * character references, and whitespace between tags. Anything else (text content, DTDs, CDATA, unknown entities,
 * mismatched or unclosed tags, trailing garbage) is rejected with an INVALID_ARGUMENT naming the source, line, column
 * and problem. No external entity is ever resolved.
 *
 * <p>Why not javax.xml: the core module only requires java.base/java.logging, the subset is tiny, and positions in the
 * messages matter more than generality. Mirrors NCCL's hand-written reader in src/graph/xml.cc.
 *
 * <p>Stateless between calls; each {@link #parse} runs on the caller's thread.
 */
public final class XmlParser {
    private static final int MAX_DEPTH = 64;
    private static final int MAX_CHARS = 64 << 20;

    private final String src;
    private final String sourceName;
    private int pos;
    private int line = 1;
    private int lineStart;

    private XmlParser(String src, String sourceName) {
        this.src = src;
        this.sourceName = sourceName;
    }

    /** Parses a file; an unreadable file is an INVALID_ARGUMENT naming it. */
    public static XmlElement parseFile(Path file) {
        try {
            if (Files.size(file) > MAX_CHARS) {
                throw new JcclException(Result.INVALID_ARGUMENT, file + ": larger than " + MAX_CHARS
                        + " bytes, not a topology file");
            }
            return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
        } catch (IOException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, "cannot read XML file " + file + ": " + e.getMessage()
                    + " (check NCCL_TOPO_FILE / NCCL_GRAPH_FILE)", e);
        }
    }

    /** Parses a document and returns its root element. */
    public static XmlElement parse(String text, String sourceName) {
        if (text.length() > MAX_CHARS) {
            throw new JcclException(Result.INVALID_ARGUMENT, sourceName + ": document too large");
        }
        return new XmlParser(text, sourceName).document();
    }

    private XmlElement document() {
        skipMisc(true);
        if (pos >= src.length()) {
            throw error("empty document: no root element");
        }
        XmlElement root = element();
        skipMisc(false);
        if (pos < src.length()) {
            throw error("unexpected content after the root element </" + root.name() + ">");
        }
        return root;
    }

    /** Skips whitespace, comments and (at the start only) the XML declaration. */
    private void skipMisc(boolean allowDecl) {
        while (true) {
            skipSpace();
            if (src.startsWith("<?", pos)) {
                if (!allowDecl) {
                    throw error("processing instruction not allowed here");
                }
                int end = src.indexOf("?>", pos);
                if (end < 0) {
                    throw error("unterminated <?...?> declaration");
                }
                advanceTo(end + 2);
                allowDecl = false;
            } else if (src.startsWith("<!--", pos)) {
                skipComment();
            } else if (src.startsWith("<!", pos)) {
                throw error("DTD or CDATA sections are not supported in topology XML");
            } else {
                return;
            }
        }
    }

    private void skipComment() {
        int end = src.indexOf("-->", pos + 4);
        if (end < 0) {
            throw error("unterminated comment");
        }
        advanceTo(end + 3);
    }

    private XmlElement element() {
        Deque<XmlElement> stack = new ArrayDeque<>();
        XmlElement root = null;
        while (true) {
            skipSpace();
            if (pos >= src.length()) {
                throw error(stack.isEmpty() ? "expected an element" : "unexpected end of file: <" + stack.peek().name()
                        + "> (line " + stack.peek().line() + ") is not closed");
            }
            if (src.startsWith("<!--", pos)) {
                skipComment();
                continue;
            }
            if (src.charAt(pos) != '<') {
                throw error("unexpected text '" + snippet() + "': topology XML has no text content");
            }
            if (src.startsWith("</", pos)) {
                int tagPos = pos;
                int tagLine = line;
                int tagLineStart = lineStart;
                advance(2);
                String name = name("closing tag name");
                skipSpace();
                expect('>');
                if (stack.isEmpty()) {
                    throw error("closing tag </" + name + "> without an open element");
                }
                XmlElement open = stack.pop();
                if (!open.name().equals(name)) {
                    pos = tagPos; // point at the tag, not past it
                    line = tagLine;
                    lineStart = tagLineStart;
                    throw error("closing tag </" + name + "> does not match <" + open.name() + "> opened on line "
                            + open.line());
                }
                if (stack.isEmpty()) {
                    return root;
                }
                continue;
            }
            if (src.startsWith("<?", pos) || src.startsWith("<!", pos)) {
                throw error("unexpected markup '" + snippet() + "'");
            }
            int startLine = line;
            advance(1);
            XmlElement e = new XmlElement(name("element name"), startLine);
            e.setSource(sourceName);
            boolean selfClosing = attributes(e);
            if (stack.isEmpty()) {
                if (root != null) {
                    throw error("a second root element <" + e.name() + ">");
                }
                root = e;
            } else {
                stack.peek().add(e);
            }
            if (!selfClosing) {
                if (stack.size() >= MAX_DEPTH) {
                    throw error("elements nested deeper than " + MAX_DEPTH);
                }
                stack.push(e);
            } else if (stack.isEmpty()) {
                return root;
            }
        }
    }

    /** Reads attributes up to {@code >} or {@code />}; returns true for a self-closing tag. */
    private boolean attributes(XmlElement e) {
        while (true) {
            boolean spaced = skipSpace();
            if (pos >= src.length()) {
                throw error("unexpected end of file inside <" + e.name() + ">");
            }
            char c = src.charAt(pos);
            if (c == '>') {
                advance(1);
                return false;
            }
            if (c == '/') {
                advance(1);
                expect('>');
                return true;
            }
            if (!spaced) {
                throw error("expected whitespace, '>' or '/>' in <" + e.name() + ">, found '" + c + "'");
            }
            String key = name("attribute name");
            skipSpace();
            expect('=');
            skipSpace();
            if (pos >= src.length()) {
                throw error("unexpected end of file in attribute " + key);
            }
            char q = src.charAt(pos);
            if (q != '"' && q != '\'') {
                throw error("attribute " + key + " value must be quoted");
            }
            advance(1);
            int end = src.indexOf(q, pos);
            if (end < 0) {
                throw error("unterminated value of attribute " + key);
            }
            String raw = src.substring(pos, end);
            if (raw.indexOf('<') >= 0) {
                throw error("'<' inside the value of attribute " + key);
            }
            String value = decode(raw, key);
            advanceTo(end + 1);
            if (e.has(key)) {
                throw error("duplicate attribute " + key + " in <" + e.name() + ">");
            }
            e.set(key, value);
        }
    }

    private String decode(String raw, String key) {
        if (raw.indexOf('&') < 0) {
            return raw;
        }
        StringBuilder sb = new StringBuilder(raw.length());
        int i = 0;
        while (i < raw.length()) {
            char c = raw.charAt(i);
            if (c != '&') {
                sb.append(c);
                i++;
                continue;
            }
            int semi = raw.indexOf(';', i);
            if (semi < 0) {
                throw error("unterminated entity in attribute " + key);
            }
            String ent = raw.substring(i + 1, semi);
            switch (ent) {
                case "amp" -> sb.append('&');
                case "lt" -> sb.append('<');
                case "gt" -> sb.append('>');
                case "quot" -> sb.append('"');
                case "apos" -> sb.append('\'');
                default -> {
                    try {
                        int cp = ent.startsWith("#x") ? Integer.parseInt(ent.substring(2), 16)
                                : ent.startsWith("#") ? Integer.parseInt(ent.substring(1)) : -1;
                        if (cp < 0 || !Character.isValidCodePoint(cp)) {
                            throw error("unknown entity &" + ent + "; in attribute " + key);
                        }
                        sb.appendCodePoint(cp);
                    } catch (NumberFormatException ex) {
                        throw error("bad character reference &" + ent + "; in attribute " + key);
                    }
                }
            }
            i = semi + 1;
        }
        return sb.toString();
    }

    private String name(String what) {
        int start = pos;
        while (pos < src.length()) {
            char c = src.charAt(pos);
            if (Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.' || c == ':') {
                pos++;
            } else {
                break;
            }
        }
        if (pos == start || !Character.isLetter(src.charAt(start)) && src.charAt(start) != '_') {
            pos = start;
            throw error("expected " + what + ", found '" + snippet() + "'");
        }
        return src.substring(start, pos);
    }

    private void expect(char c) {
        if (pos >= src.length() || src.charAt(pos) != c) {
            throw error("expected '" + c + "', found " + (pos >= src.length() ? "end of file" : "'" + snippet() + "'"));
        }
        advance(1);
    }

    private boolean skipSpace() {
        int start = pos;
        while (pos < src.length()) {
            char c = src.charAt(pos);
            if (c == '\n') {
                line++;
                lineStart = pos + 1;
            } else if (c != ' ' && c != '\t' && c != '\r' && c != '\uFEFF') {
                break;
            }
            pos++;
        }
        return pos > start;
    }

    private void advance(int n) {
        advanceTo(pos + n);
    }

    private void advanceTo(int target) {
        while (pos < target && pos < src.length()) {
            if (src.charAt(pos) == '\n') {
                line++;
                lineStart = pos + 1;
            }
            pos++;
        }
    }

    private String snippet() {
        int end = Math.min(src.length(), pos + 20);
        StringBuilder sb = new StringBuilder();
        for (int i = pos; i < end; i++) {
            char c = src.charAt(i);
            sb.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return sb.toString();
    }

    private JcclException error(String problem) {
        int col = pos - lineStart + 1;
        return new JcclException(Result.INVALID_ARGUMENT, sourceName + ":" + line + ":" + col
                + ": malformed topology XML: "
                + problem);
    }
}
