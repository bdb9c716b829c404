package io.jccl.tools.perf;

import java.util.Locale;

/**
 * Parses nccl-tests size arguments: a number with an optional K, M or G suffix (1024-based, either case), e.g.
 * {@code 8}, {@code 128M}, {@code 1.5K}, {@code 2g}. Stateless; mirrors nccl-tests' {@code parsesize}.
 */
public final class SizeParser {
    private SizeParser() {
    }

    /**
     * The size in bytes.
     *
     * @throws IllegalArgumentException when the text is not a non-negative number with an optional K/M/G suffix
     */
    public static long parse(String text) {
        String t = text.trim();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("empty size; expected a number with an optional K, M or G suffix");
        }
        long unit = 1;
        char last = Character.toUpperCase(t.charAt(t.length() - 1));
        switch (last) {
            case 'K' -> unit = 1L << 10;
            case 'M' -> unit = 1L << 20;
            case 'G' -> unit = 1L << 30;
            default -> {
                if (!Character.isDigit(last) && last != '.') {
                    throw new IllegalArgumentException("bad size '" + text + "': the suffix must be K, M or G");
                }
            }
        }
        String number = unit == 1 ? t : t.substring(0, t.length() - 1).trim();
        double value;
        try {
            value = Double.parseDouble(number);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad size '" + text + "': expected e.g. 8, 64K, 128M or 1G", e);
        }
        if (!(value >= 0) || Double.isInfinite(value) || value * unit > Long.MAX_VALUE / 2.0) {
            throw new IllegalArgumentException("bad size '" + text + "': must be between 0 and 2^62 bytes");
        }
        return (long) (value * unit);
    }

    /** Formats a byte count the way users type it back: {@code 128M}, {@code 4K}, {@code 1000}. */
    public static String format(long bytes) {
        String[] suffixes = {"G", "M", "K"};
        int[] shifts = {30, 20, 10};
        for (int i = 0; i < shifts.length; i++) {
            long unit = 1L << shifts[i];
            if (bytes >= unit && bytes % unit == 0) {
                return (bytes / unit) + suffixes[i];
            }
        }
        return Long.toString(bytes).toUpperCase(Locale.ROOT);
    }
}
