package io.jccl.internal.param;

import java.util.Locale;

/**
 * The value types a parameter can have, with the parsing NCCL users expect: integers as C's {@code strtoll(s, 0)}
 * reads them (decimal, {@code 0x} hex, leading-{@code 0} octal) plus JCCL's {@code K}/{@code M}/{@code G} suffixes
 * (1024-based); booleans as {@code 1/0}, {@code true/false}, {@code yes/no}, {@code on/off}.
 *
 * <p>Owned by: any thread (stateless). Mirrors: the {@code strtoll} parsing in NCCL's ncclLoadParam.
 */
enum ParamType {
    /** A 32-bit integer. */
    INT("integer"),
    /** A 64-bit integer, often a size in bytes. */
    LONG("integer"),
    /** A decimal number. */
    DOUBLE("number"),
    /** A truth value. */
    BOOLEAN("boolean"),
    /** One of a fixed set of names (case-insensitive). */
    CHOICE("name"),
    /** Free text: a path, a list, a grammar the reader checks. */
    STRING("text");

    private final String label;

    ParamType(String label) {
        this.label = label;
    }

    /** How the type is shown in tables: integer, number, boolean, name, text. */
    public String label() {
        return label;
    }

    /** Parses like strtoll(s, 0): decimal, 0x hex or leading-0 octal; K/M/G suffixes (1024-based) allowed. */
    public static long parseLong(String s) {
        String t = s.trim();
        if (t.isEmpty()) {
            throw new NumberFormatException("empty");
        }
        long mult = 1;
        char last = Character.toUpperCase(t.charAt(t.length() - 1));
        if (last == 'K' || last == 'M' || last == 'G') {
            mult = last == 'K' ? 1L << 10 : last == 'M' ? 1L << 20 : 1L << 30;
            t = t.substring(0, t.length() - 1);
        }
        boolean neg = t.startsWith("-");
        String u = neg || t.startsWith("+") ? t.substring(1) : t;
        long v;
        if (u.startsWith("0x") || u.startsWith("0X")) {
            v = Long.parseLong(u.substring(2), 16);
        } else if (u.length() > 1 && u.startsWith("0")) {
            v = Long.parseLong(u.substring(1), 8);
        } else {
            v = Long.parseLong(u);
        }
        try {
            return Math.multiplyExact(neg ? -v : v, mult);
        } catch (ArithmeticException e) {
            throw new NumberFormatException(s + " overflows 64 bits");
        }
    }

    /** 1/0, true/false, yes/no, on/off (any case). */
    public static boolean parseBoolean(String s) {
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes", "on" -> true;
            case "0", "false", "no", "off" -> false;
            default -> throw new IllegalArgumentException("'" + s + "' is not a boolean (use 1/0, true/false)");
        };
    }
}
