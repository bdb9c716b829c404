package io.jccl.internal.param;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.function.Function;

/**
 * One configuration parameter, declared once (NCCL's {@code NCCL_PARAM}): its environment name, type, default and
 * documentation. The value comes from a Java system property of the same name, else the environment, else the
 * default; an unparsable value is an error naming the variable, never a silent default.
 *
 * <p>Owned by: any thread (immutable). Mirrors: NCCL's param.h / ncclLoadParam.
 *
 * @param <T> the value type
 */
public final class Param<T> {
    private final String name;
    private final T defaultValue;
    private final String doc;
    private final Function<String, T> parser;

    Param(String name, T defaultValue, String doc, Function<String, T> parser) {
        this.name = name;
        this.defaultValue = defaultValue;
        this.doc = doc;
        this.parser = parser;
    }

    public String name() {
        return name;
    }

    public T defaultValue() {
        return defaultValue;
    }

    public String doc() {
        return doc;
    }

    /** The raw text set for this parameter, or null: system property first, then environment. */
    public String raw() {
        String v = System.getProperty(name);
        if (v == null) {
            v = System.getenv(name);
        }
        return v == null || v.isBlank() ? null : v.trim();
    }

    /** Where the effective value comes from: "system property", "environment" or "default". */
    public String source() {
        if (System.getProperty(name) != null) {
            return "system property";
        }
        return System.getenv(name) != null ? "environment" : "default";
    }

    /** True when the user set this parameter. */
    public boolean isSet() {
        return raw() != null;
    }

    /** The effective value. */
    public T get() {
        String v = raw();
        if (v == null) {
            return defaultValue;
        }
        try {
            return parser.apply(v);
        } catch (RuntimeException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, "cannot parse " + name + "=" + v + " (" + doc + "): "
                    + e.getMessage());
        }
    }
}
