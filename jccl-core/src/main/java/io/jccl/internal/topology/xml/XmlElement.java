package io.jccl.internal.topology.xml;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One element of a topology or graph XML document: a name, attributes in document order, child elements, and the
 * line it started on (for error messages). NCCL's topology XML carries no text content, so neither does this.
 *
 * <p>Mutable tree built by one thread (parser, discovery, rank assignment); mirrors NCCL's {@code ncclXmlNode}.
 */
public final class XmlElement {
    private final String name;
    private final Map<String, String> attributes = new LinkedHashMap<>();
    private final List<XmlElement> children = new ArrayList<>();
    private XmlElement parent;
    private final int line;
    private String source = "<memory>";

    public XmlElement(String name) {
        this(name, 0);
    }

    public XmlElement(String name, int line) {
        this.name = name;
        this.line = line;
    }

    public String name() {
        return name;
    }

    public int line() {
        return line;
    }

    /** The file (or description) the element came from. */
    public String source() {
        return source;
    }

    void setSource(String source) {
        this.source = source;
    }

    public XmlElement parent() {
        return parent;
    }

    public Map<String, String> attributes() {
        return Collections.unmodifiableMap(attributes);
    }

    public String attr(String key) {
        return attributes.get(key);
    }

    public boolean has(String key) {
        return attributes.containsKey(key);
    }

    /** Sets (or replaces, keeping its position) an attribute; returns this. */
    public XmlElement set(String key, String value) {
        attributes.put(key, value);
        return this;
    }

    public XmlElement set(String key, long value) {
        return set(key, Long.toString(value));
    }

    public void remove(String key) {
        attributes.remove(key);
    }

    public List<XmlElement> children() {
        return Collections.unmodifiableList(children);
    }

    public List<XmlElement> children(String childName) {
        List<XmlElement> r = new ArrayList<>();
        for (XmlElement c : children) {
            if (c.name.equals(childName)) {
                r.add(c);
            }
        }
        return r;
    }

    /** The first child with that name, or null. */
    public XmlElement child(String childName) {
        for (XmlElement c : children) {
            if (c.name.equals(childName)) {
                return c;
            }
        }
        return null;
    }

    public XmlElement add(XmlElement child) {
        child.parent = this;
        child.source = source;
        children.add(child);
        return child;
    }

    public XmlElement addChild(String childName) {
        return add(new XmlElement(childName, 0));
    }

    public boolean removeChild(XmlElement child) {
        return children.remove(child);
    }

    /** Every element of the subtree with that name, in document order. */
    public List<XmlElement> descendants(String elementName) {
        List<XmlElement> r = new ArrayList<>();
        collect(this, elementName, r);
        return r;
    }

    private static void collect(XmlElement e, String n, List<XmlElement> out) {
        for (XmlElement c : e.children) {
            if (c.name.equals(n)) {
                out.add(c);
            }
            collect(c, n, out);
        }
    }

    /** Where this element is, for messages: {@code file:line <name>}. */
    public String where() {
        return source + ":" + line + " <" + name + ">";
    }

    /** A required attribute; a clear INVALID_ARGUMENT naming file, line and element when missing. */
    public String required(String key) {
        String v = attributes.get(key);
        if (v == null) {
            throw new JcclException(Result.INVALID_ARGUMENT, where() + ": missing attribute '" + key + "'");
        }
        return v;
    }

    /**
     * An integer attribute (decimal or 0x hex), {@code dflt} when absent; malformed → INVALID_ARGUMENT with position.
     */
    public long longAttr(String key, long dflt) {
        String v = attributes.get(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            String s = v.trim();
            if (s.startsWith("0x") || s.startsWith("0X")) {
                return Long.parseUnsignedLong(s.substring(2), 16);
            }
            if (s.startsWith("-0x")) {
                return -Long.parseLong(s.substring(3), 16);
            }
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, where() + ": attribute " + key + "=\"" + v
                    + "\" is not an integer");
        }
    }

    public int intAttr(String key, int dflt) {
        long v = longAttr(key, dflt);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new JcclException(Result.INVALID_ARGUMENT, where() + ": attribute " + key + "=" + v
                    + " is out of range");
        }
        return (int) v;
    }

    public double doubleAttr(String key, double dflt) {
        String v = attributes.get(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, where() + ": attribute " + key + "=\"" + v
                    + "\" is not a number");
        }
    }

    @Override
    public String toString() {
        return "<" + name + " " + attributes + (children.isEmpty() ? "/>" : "> +" + children.size() + " children");
    }
}
