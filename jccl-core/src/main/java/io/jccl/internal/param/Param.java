package io.jccl.internal.param;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One configuration parameter, declared once (NCCL's {@code NCCL_PARAM}): its name, type, default, allowed range,
 * documentation and the part of JCCL that reads it. The effective value comes from {@link ParamSources} (a Java
 * system property of the same name, the environment, the config files) or the default; an unparsable or out-of-range
 * value is an error naming the variable and where it was set, never a silent default. Values are read when asked
 * for, not cached, so a communicator created later sees a changed system property.
 *
 * <p>Parameters of kind {@link Kind#PROPERTY} are JCCL's internal {@code jccl.*} tuning knobs, read from system
 * properties only; {@link Kind#SCRIPT} ones are read by the {@code jccl} shell script, not by Java code.
 *
 * <p>Owned by: any thread (immutable). Mirrors: NCCL's param.h / ncclLoadParam.
 *
 * @param <T> the value type
 */
public final class Param<T> {
    /** How a parameter is set. */
    public enum Kind {
        /** An NCCL_* / JCCL_* variable: system property, environment or config file. */
        VARIABLE,
        /** An internal {@code jccl.*} system property (-D only). */
        PROPERTY,
        /** Read by the {@code jccl} script from the environment. */
        SCRIPT
    }

    private final String name;
    private final ParamType type;
    private final T defaultValue;
    private final String doc;
    private final ParamCategory category;
    private final Kind kind;
    private final Function<String, T> parser;
    private final Function<T, String> check;
    private final String rangeText;
    private final boolean secret;

    private Param(String name, ParamType type, T defaultValue, String doc, ParamCategory category, Kind kind,
                  Function<String, T> parser, Function<T, String> check, String rangeText) {
        this(name, type, defaultValue, doc, category, kind, parser, check, rangeText, false);
    }

    private Param(String name, ParamType type, T defaultValue, String doc, ParamCategory category, Kind kind,
                  Function<String, T> parser, Function<T, String> check, String rangeText, boolean secret) {
        this.name = Objects.requireNonNull(name);
        this.type = type;
        this.defaultValue = defaultValue;
        this.doc = doc;
        this.category = category;
        this.kind = kind;
        this.parser = parser;
        this.check = check;
        this.rangeText = rangeText;
        this.secret = secret;
    }

    public static Param<Integer> ofInt(String name, int def, ParamCategory category, String doc) {
        return new Param<>(name, ParamType.INT, def, doc, category, Kind.VARIABLE,
                s -> Math.toIntExact(ParamType.parseLong(s)), v -> null, "");
    }

    public static Param<Long> ofLong(String name, long def, ParamCategory category, String doc) {
        return new Param<>(name, ParamType.LONG, def, doc, category, Kind.VARIABLE, ParamType::parseLong, v -> null,
                "");
    }

    public static Param<Double> ofDouble(String name, double def, ParamCategory category, String doc) {
        return new Param<>(name, ParamType.DOUBLE, def, doc, category, Kind.VARIABLE, s -> Double.parseDouble(s.trim()),
                v -> Double.isFinite(v) ? null : "must be a finite number", "");
    }

    public static Param<Boolean> ofBoolean(String name, boolean def, ParamCategory category, String doc) {
        return new Param<>(name, ParamType.BOOLEAN, def, doc, category, Kind.VARIABLE, ParamType::parseBoolean,
                v -> null, "0/1, true/false");
    }

    /** Free text; {@code def} may be empty (shown as unset). */
    public static Param<String> ofString(String name, String def, ParamCategory category, String doc) {
        return new Param<>(name, ParamType.STRING, def, doc, category, Kind.VARIABLE, String::trim, v -> null, "");
    }

    /** One of {@code choices} (any case); the value is returned in the spelling of {@code choices}. */
    public static Param<String> ofChoice(String name, String def, List<String> choices, ParamCategory category,
                                         String doc) {
        List<String> c = List.copyOf(choices);
        Function<String, String> parse = s -> {
            for (String option : c) {
                if (option.equalsIgnoreCase(s.trim())) {
                    return option;
                }
            }
            throw new IllegalArgumentException("'" + s.trim() + "' is not one of " + String.join(", ", c));
        };
        return new Param<>(name, ParamType.CHOICE, def, doc, category, Kind.VARIABLE, parse, v -> null,
                String.join("|", c));
    }

    /** The same parameter, limited to [{@code min}, {@code max}] (numbers only). */
    public Param<T> range(double min, double max) {
        String text = fmt(min) + ".." + (max >= Long.MAX_VALUE ? "" : fmt(max));
        Function<T, String> inRange = v -> {
            double d = ((Number) v).doubleValue();
            return d < min || d > max ? "must be within " + text : null;
        };
        return new Param<>(name, type, defaultValue, doc, category, kind, parser, inRange, text, secret);
    }

    /** The same parameter, with a check returning an error message for a bad value, or null. */
    public Param<T> checkedBy(Function<T, String> valueCheck, String allowed) {
        return new Param<>(name, type, defaultValue, doc, category, kind, parser, valueCheck, allowed, secret);
    }

    /** The same parameter, whose value is never shown (logs, tables and errors say only that it is set). */
    public Param<T> secret() {
        return new Param<>(name, type, defaultValue, doc, category, kind, parser, check, rangeText, true);
    }

    /** True when the value must not be shown. */
    public boolean isSecret() {
        return secret;
    }

    /** {@code raw} as it may be shown: itself, or a placeholder for a secret. */
    public String shown(String raw) {
        return secret ? "(hidden, " + raw.length() + " characters)" : raw;
    }

    /** The same parameter as an internal {@code jccl.*} system property. */
    public Param<T> property() {
        return new Param<>(name, type, defaultValue, doc, category, Kind.PROPERTY, parser, check, rangeText, secret);
    }

    /** The same parameter as one the {@code jccl} script reads. */
    public Param<T> script() {
        return new Param<>(name, type, defaultValue, doc, category, Kind.SCRIPT, parser, check, rangeText, secret);
    }

    public String name() {
        return name;
    }

    public ParamType type() {
        return type;
    }

    public T defaultValue() {
        return defaultValue;
    }

    public String doc() {
        return doc;
    }

    public ParamCategory category() {
        return category;
    }

    public Kind kind() {
        return kind;
    }

    /** Allowed values, e.g. {@code 0..64} or {@code VERSION|WARN|INFO|TRACE}; empty when anything parsable goes. */
    public String rangeText() {
        return rangeText;
    }

    /** The default as shown to users ({@code (unset)} for an empty text default). */
    public String defaultText() {
        if (defaultValue == null || (defaultValue instanceof String s && s.isEmpty())) {
            return "(unset)";
        }
        return defaultValue instanceof Double d ? fmt(d) : defaultValue.toString();
    }

    /** The value set for this parameter and where, or null when unset (system property → environment → files). */
    public ParamSources.Found found() {
        ParamSources s = ParamSources.current();
        return kind == Kind.PROPERTY ? s.property(name) : s.find(name);
    }

    /** The raw text set for this parameter, or null. */
    public String raw() {
        ParamSources.Found f = found();
        return f == null ? null : f.value();
    }

    /** Where the effective value comes from: "system property", "environment", "config file F" or "default". */
    public String source() {
        ParamSources.Found f = found();
        return f == null ? ParamSources.Origin.DEFAULT.label() : f.describe();
    }

    /** True when the user set this parameter. */
    public boolean isSet() {
        return found() != null;
    }

    /** The effective value; throws {@link Result#INVALID_ARGUMENT} naming the variable when it is unusable. */
    public T get() {
        ParamSources.Found f = found();
        if (f == null) {
            return defaultValue;
        }
        String problem = problemWith(f.value());
        if (problem != null) {
            throw new JcclException(Result.INVALID_ARGUMENT, name + "=" + shown(f.value()) + " (" + f.describe() + ") "
                    + problem + "; fix or unset it (" + doc + ")");
        }
        return parser.apply(f.value());
    }

    /** Why the value set is unusable ("is not an integer", "must be within 0..64"), or null when fine or unset. */
    public String problem() {
        String v = raw();
        return v == null ? null : problemWith(v);
    }

    /** The check {@link #get} applies to raw text {@code v}: an error message, or null when {@code v} is usable. */
    public String problemWith(String v) {
        T value;
        try {
            value = parser.apply(v);
        } catch (RuntimeException e) {
            return switch (type) {
                case INT, LONG -> "is not an integer (decimal, 0x hex, 0 octal, K/M/G suffixes)";
                case DOUBLE -> "is not a number";
                default -> e.getMessage() == null ? "cannot be parsed" : e.getMessage();
            };
        }
        return check.apply(value);
    }

    /** The effective value as text for tables, or the reason it is unusable. */
    public String valueText() {
        ParamSources.Found f = found();
        if (f == null) {
            return defaultText();
        }
        return problemWith(f.value()) != null ? shown(f.value()) + " (invalid)" : shown(f.value());
    }

    private static String fmt(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e18) {
            return Long.toString((long) d);
        }
        return String.format(Locale.ROOT, "%s", d);
    }

    @Override
    public String toString() {
        return name + "=" + valueText() + " (" + source() + ")";
    }
}
