package io.jccl.internal.param;

import java.util.ArrayList;
import java.util.List;

/**
 * Checks what is set against the registry: NCCL_* / JCCL_* names that nothing declares (typos, with the nearest
 * declared name as a suggestion), NCCL variables JCCL ignores, values that do not parse or are out of range, and
 * config-file problems. Pure: it reads {@link ParamSources} and returns findings; the logger reports them once, at
 * the first communicator init, and {@code ./jccl params} prints them.
 *
 * <p>Owned by: any thread (stateless). Mirrors: nothing in NCCL, which ignores a misspelled variable silently.
 */
public final class ParamCheck {
    /** What kind of finding. */
    public enum Kind {
        /** An NCCL_* / JCCL_* name nothing declares: probably a typo. */
        UNKNOWN,
        /** An NCCL variable JCCL knows but does not implement. */
        NO_EFFECT,
        /** A declared parameter with an unusable value. */
        INVALID,
        /** A config file that could not be read or has a malformed line. */
        CONFIG_FILE
    }

    /** One finding; {@code name} is the variable (or the file for {@link Kind#CONFIG_FILE}). */
    public record Finding(Kind kind, String name, String message) {
    }

    /** A set parameter and its value, for the {@code NCCL_X set by environment to Y} lines. */
    public record SetValue(Param<?> param, ParamSources.Found found) {
    }

    /** Settings of the CPU emulator of the CUDA driver (jccl-cuda's tests), which reads them itself. */
    static final String EMULATOR_PREFIX = "JCCL_EMU_";

    private ParamCheck() {
    }

    /** Every finding for what {@code sources} holds, sorted by name within each kind. */
    @SuppressWarnings("try") // the resource is held for the scope, not used
    public static List<Finding> inspect(ParamSources sources) {
        List<Finding> out = new ArrayList<>();
        List<Param<?>> all = Params.all();
        try (ParamSources.Installed ignored = ParamSources.use(sources)) {
            for (String name : sources.namesStartingWith("NCCL_", "JCCL_")) {
                if (declared(all, name) || name.startsWith(EMULATOR_PREFIX)) {
                    continue;
                }
                String near = suggestion(name, all);
                boolean typo = near != null && distance(name, near) <= 2;
                if (NcclOnlyNames.NAMES.contains(name) || (!typo && NcclOnlyNames.contains(name))) {
                    out.add(new Finding(Kind.NO_EFFECT, name, name + " has no effect in JCCL (an NCCL setting JCCL "
                            + "does not implement)"));
                } else {
                    out.add(new Finding(Kind.UNKNOWN, name, name + " is set but JCCL does not know it"
                            + (near == null ? "" : "; did you mean " + near + "?")
                            + " (./jccl params lists every parameter)"));
                }
            }
            for (Param<?> p : all) {
                ParamSources.Found f = p.found();
                String problem = f == null ? null : p.problemWith(f.value());
                if (problem != null) {
                    out.add(new Finding(Kind.INVALID, p.name(), p.name() + "=" + p.shown(f.value()) + " ("
                            + f.describe() + ") "
                            + problem));
                }
            }
        }
        for (String problem : sources.problems()) {
            out.add(new Finding(Kind.CONFIG_FILE, "config", problem));
        }
        out.sort((a, b) -> a.kind() != b.kind() ? a.kind().compareTo(b.kind()) : a.name().compareTo(b.name()));
        return out;
    }

    /** Every declared parameter that is set in {@code sources}, in declaration order. */
    @SuppressWarnings("try") // the resource is held for the scope, not used
    public static List<SetValue> setValues(ParamSources sources) {
        List<SetValue> out = new ArrayList<>();
        try (ParamSources.Installed ignored = ParamSources.use(sources)) {
            for (Param<?> p : Params.all()) {
                ParamSources.Found f = p.found();
                if (f != null) {
                    out.add(new SetValue(p, f));
                }
            }
        }
        return out;
    }

    private static boolean declared(List<Param<?>> all, String name) {
        for (Param<?> p : all) {
            if (p.name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** The declared name closest to {@code name} (at most 3 edits), or null. */
    static String suggestion(String name, List<Param<?>> all) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (Param<?> p : all) {
            if (p.kind() == Param.Kind.PROPERTY) {
                continue;
            }
            int d = distance(name, p.name());
            if (d < bestDistance) {
                bestDistance = d;
                best = p.name();
            }
        }
        return bestDistance <= 3 ? best : null;
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
