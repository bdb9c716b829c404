package io.jccl.internal.param;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The registry as a table: one row per parameter with its effective value, where it came from, the default and the
 * documentation; rendered as aligned text ({@code ./jccl params}) or as Markdown ({@code docs/params.md}, which a
 * test keeps in step with the registry).
 *
 * <p>Owned by: the calling thread (stateless). Mirrors: nothing in NCCL (NCCL_DEBUG_SUBSYS=ENV only echoes what is
 * set).
 */
public final class ParamTable {
    /** One parameter as shown. */
    public record Row(ParamCategory category, String name, String type, String value, String source,
                      String defaultText, String allowed, String doc, Param.Kind kind, boolean set, String problem) {
    }

    private ParamTable() {
    }

    /** Rows for every parameter in {@code sources}; internal {@code jccl.*} properties only when asked. */
    @SuppressWarnings("try") // the resource is held for the scope, not used
    public static List<Row> rows(ParamSources sources, boolean withProperties) {
        List<Row> rows = new ArrayList<>();
        try (ParamSources.Installed ignored = ParamSources.use(sources)) {
            for (ParamCategory c : ParamCategory.values()) {
                for (Param<?> p : Params.all()) {
                    if (p.category() != c || (!withProperties && p.kind() == Param.Kind.PROPERTY)) {
                        continue;
                    }
                    rows.add(new Row(c, p.name(), p.type().label(), p.valueText(), p.source(), p.defaultText(),
                            p.rangeText(), p.doc(), p.kind(), p.isSet(), p.problem()));
                }
            }
        }
        return rows;
    }

    /** Aligned columns NAME, VALUE, SOURCE, DEFAULT, DESCRIPTION, grouped under category headings. */
    public static List<String> text(List<Row> rows) {
        int wName = 4;
        int wValue = 5;
        int wSource = 6;
        int wDefault = 7;
        for (Row r : rows) {
            wName = Math.max(wName, r.name().length());
            wValue = Math.max(wValue, Math.min(32, r.value().length()));
            wSource = Math.max(wSource, r.source().length());
            wDefault = Math.max(wDefault, Math.min(20, r.defaultText().length()));
        }
        String fmt = "  %-" + wName + "s  %-" + wValue + "s  %-" + wSource + "s  %-" + wDefault + "s  %s";
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, fmt, "NAME", "VALUE", "SOURCE", "DEFAULT", "DESCRIPTION").stripTrailing());
        ParamCategory last = null;
        for (Row r : rows) {
            if (r.category() != last) {
                out.add(r.category().title());
                last = r.category();
            }
            String doc = r.doc() + (r.kind() == Param.Kind.SCRIPT ? " [read by the jccl script]" : "");
            out.add(String.format(Locale.ROOT, fmt, r.name(), cut(r.value(), 32), r.source(), cut(r.defaultText(), 20),
                    doc).stripTrailing());
        }
        return out;
    }

    /** Markdown tables, one per category: name, type, default, allowed values, description. */
    public static List<String> markdown(List<Row> rows) {
        List<String> out = new ArrayList<>();
        ParamCategory last = null;
        for (Row r : rows) {
            if (r.category() != last) {
                if (last != null) {
                    out.add("");
                }
                out.add("### " + r.category().title());
                out.add("");
                out.add("| Name | Type | Default | Allowed | Description |");
                out.add("|---|---|---|---|---|");
                last = r.category();
            }
            String name = r.kind() == Param.Kind.PROPERTY ? "`-D" + r.name() + "`" : "`" + r.name() + "`";
            String doc = r.doc() + (r.kind() == Param.Kind.SCRIPT ? " (read by the `jccl` script)" : "");
            String dflt = r.defaultText().equals("(unset)") ? "" : r.defaultText();
            out.add("| " + name + " | " + r.type() + " | " + cell(dflt) + " | " + cell(r.allowed()) + " | "
                    + doc.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;") + " |");
        }
        return out;
    }

    private static String cell(String s) {
        return s.isEmpty() ? "" : "`" + s.replace("|", "\\|") + "`";
    }

    private static String cut(String s, int width) {
        return s.length() <= width ? s : s.substring(0, width - 3) + "...";
    }
}
