package io.jccl.internal.topology;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.Map;

/**
 * Where topology and tuning read their NCCL_* settings: a Java system property of the same name wins over the
 * environment variable (DESIGN §8). Tests pass a map instead. The communicator may later route this through the
 * common parameter registry; the names and parsing here follow NCCL.
 *
 * <p>Implementations must be safe to call from the initialising thread; the provided ones are immutable.
 */
@FunctionalInterface
public interface TopoEnv {
    /** The raw value, or null when unset. */
    String get(String name);

    /** The parameter registry's sources: system properties, then the environment, then NCCL's config files. */
    static TopoEnv system() {
        return name -> io.jccl.internal.param.ParamSources.current().raw(name);
    }

    /** A fixed map (for tests and tools). */
    static TopoEnv of(Map<String, String> values) {
        Map<String, String> copy = Map.copyOf(values);
        return copy::get;
    }

    /** Nothing set. */
    static TopoEnv empty() {
        return name -> null;
    }

    /** The value, or null when unset or blank. */
    default String string(String name) {
        String v = get(name);
        return v == null || v.isBlank() ? null : v.trim();
    }

    /**
     * An integer parsed as C's {@code strtoll(s, 0)} does (decimal, 0x hex, leading-0 octal); {@code dflt} when unset.
     * An unparsable value is an error naming the variable (NCCL silently falls back; JCCL says so instead).
     */
    default long longValue(String name, long dflt) {
        String v = string(name);
        if (v == null) {
            return dflt;
        }
        try {
            String s = v;
            boolean neg = s.startsWith("-");
            if (neg || s.startsWith("+")) {
                s = s.substring(1);
            }
            long r;
            if (s.startsWith("0x") || s.startsWith("0X")) {
                r = Long.parseLong(s.substring(2), 16);
            } else if (s.length() > 1 && s.startsWith("0")) {
                r = Long.parseLong(s.substring(1), 8);
            } else {
                r = Long.parseLong(s);
            }
            return neg ? -r : r;
        } catch (NumberFormatException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, name + "=" + v + " is not an integer; unset it or give a"
                    + " number (decimal, 0x hex or 0 octal)");
        }
    }

    default int intValue(String name, int dflt) {
        long v = longValue(name, dflt);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new JcclException(Result.INVALID_ARGUMENT, name + "=" + v + " is out of the int range");
        }
        return (int) v;
    }
}
