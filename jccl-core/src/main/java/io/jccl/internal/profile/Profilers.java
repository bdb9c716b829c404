package io.jccl.internal.profile;

import io.jccl.Profiler;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The profiler plugins of this process: {@link Profiler} services found by {@link ServiceLoader} when first needed,
 * filtered by {@code JCCL_PROFILER} (unset: all; {@code none}: none; else a comma list of class names, simple or
 * qualified). A plugin that throws is reported once and dropped. Tests install their own list with {@link #use}.
 *
 * <p>Owned by: any thread (the list is copy-on-write). Mirrors: NCCL's profiler plugin loader (NCCL_PROFILER_PLUGIN).
 */
public final class Profilers {
    private static volatile List<Profiler> active;

    private Profilers() {
    }

    /** The enabled profilers (loaded at the first call). */
    public static List<Profiler> active() {
        List<Profiler> a = active;
        if (a == null) {
            synchronized (Profilers.class) {
                if (active == null) {
                    active = new CopyOnWriteArrayList<>(load(ServiceLoader.load(Profiler.class).iterator(),
                            Params.PROFILER.raw()));
                }
                a = active;
            }
        }
        return a;
    }

    /** Uses {@code profilers} until the handle is closed (tests). */
    public static Installed use(List<Profiler> profilers) {
        List<Profiler> previous;
        synchronized (Profilers.class) {
            previous = active;
            active = new CopyOnWriteArrayList<>(profilers);
        }
        return () -> {
            synchronized (Profilers.class) {
                active = previous;
            }
        };
    }

    /** Restores the previous profilers when closed. */
    @FunctionalInterface
    public interface Installed extends AutoCloseable {
        @Override
        void close();
    }

    /** The services {@code found} that {@code filter} (JCCL_PROFILER's value, or null) selects. */
    static List<Profiler> load(Iterator<Profiler> found, String filter) {
        List<Profiler> out = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        String f = filter == null ? "" : filter.trim();
        if (f.equalsIgnoreCase("none")) {
            return out;
        }
        List<String> wanted = new ArrayList<>();
        for (String s : f.split(",")) {
            if (!s.isBlank()) {
                wanted.add(s.trim());
            }
        }
        while (true) {
            Profiler p;
            try {
                if (!found.hasNext()) {
                    break;
                }
                p = found.next();
            } catch (ServiceConfigurationError e) {
                Log.warn(-1, "profiler plugin could not be loaded: %s", e.getMessage());
                continue;
            }
            Class<?> c = p.getClass();
            seen.add(c.getName());
            if (wanted.isEmpty() || wanted.contains(c.getName()) || wanted.contains(c.getSimpleName())) {
                out.add(p);
                Log.info(Subsys.PROFILE, -1, "profiler plugin %s enabled", c.getName());
            }
        }
        for (String w : wanted) {
            if (out.stream().noneMatch(p -> p.getClass().getName().equals(w)
                    || p.getClass().getSimpleName().equals(w))) {
                Log.warn(-1, "JCCL_PROFILER names %s but no such io.jccl.Profiler service was found (found: %s)", w,
                        seen.isEmpty() ? "none" : String.join(", ", seen));
            }
        }
        return out;
    }

    /** Drops a plugin that threw, saying so once. */
    public static void failed(Profiler p, String what, RuntimeException e) {
        List<Profiler> a = active;
        if (a != null && a.remove(p)) {
            Log.warn(-1, "profiler plugin %s failed in %s (%s); it is disabled for the rest of this process",
                    p.getClass().getName(), what, e);
        }
    }
}
