package io.jccl.internal.param;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Where parameter values come from, highest precedence first: a Java system property of the parameter's name, the
 * process environment, the user's config file ({@code NCCL_CONF_FILE}, else {@code ~/.nccl.conf}), the system
 * config file ({@code /etc/nccl.conf}). Config files hold {@code NAME=value} lines and {@code #} comments, as NCCL's
 * do, and are read once, on first need. Tests install their own sources with {@link #use}.
 *
 * <p>Owned by: any thread (the installed instance is swapped atomically; the config files are loaded under a
 * lock). Mirrors: NCCL's ncclLoadParam / initEnv (environment first, then the user and system config files).
 */
public final class ParamSources {
    /** Where an effective value was found. */
    public enum Origin {
        SYSTEM_PROPERTY("system property"), ENVIRONMENT("environment"), CONFIG_FILE("config file"), DEFAULT("default");

        private final String label;

        Origin(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /**
     * A value that is set, with its origin; {@code file} names the config file for {@link Origin#CONFIG_FILE}.
     */
    public record Found(String value, Origin origin, String file) {
        /** E.g. {@code environment} or {@code config file /etc/nccl.conf}. */
        public String describe() {
            return file == null ? origin.label() : origin.label() + " " + file;
        }
    }

    private static final ParamSources SYSTEM = new ParamSources(System::getProperty, System::getenv,
            () -> System.getProperties().stringPropertyNames(), () -> System.getenv().keySet(),
            Path.of("/etc/nccl.conf"));
    private static volatile ParamSources current = SYSTEM;

    private final Function<String, String> properties;
    private final Function<String, String> environment;
    private final java.util.function.Supplier<java.util.Set<String>> propertyNames;
    private final java.util.function.Supplier<java.util.Set<String>> environmentNames;
    private final Path systemConf;
    private Map<String, Found> confValues;
    private final List<String> problems = new ArrayList<>();

    private ParamSources(Function<String, String> properties, Function<String, String> environment,
                         java.util.function.Supplier<java.util.Set<String>> propertyNames,
                         java.util.function.Supplier<java.util.Set<String>> environmentNames,
                         Path systemConf) {
        this.properties = properties;
        this.environment = environment;
        this.propertyNames = propertyNames;
        this.environmentNames = environmentNames;
        this.systemConf = systemConf;
        this.confValues = systemConf == null ? Map.of() : null;
    }

    /** The JVM's system properties, environment and config files. */
    public static ParamSources system() {
        return SYSTEM;
    }

    /** Fixed maps (tests and tools), without config files. */
    public static ParamSources of(Map<String, String> properties, Map<String, String> environment) {
        Map<String, String> p = Map.copyOf(properties);
        Map<String, String> e = Map.copyOf(environment);
        return new ParamSources(p::get, e::get, p::keySet, e::keySet, null);
    }

    /**
     * Fixed maps plus config files: {@code NCCL_CONF_FILE} from the maps (else {@code ~/.nccl.conf}) over
     * {@code systemConf} (tests; the JVM's sources use {@code /etc/nccl.conf}).
     */
    public static ParamSources withConfigFiles(Map<String, String> properties, Map<String, String> environment,
                                               Path systemConf) {
        Map<String, String> p = Map.copyOf(properties);
        Map<String, String> e = Map.copyOf(environment);
        return new ParamSources(p::get, e::get, p::keySet, e::keySet, systemConf);
    }

    /** The sources parameters are read from now. */
    public static ParamSources current() {
        return current;
    }

    /** Installs {@code sources} until the returned handle is closed (tests). */
    public static Installed use(ParamSources sources) {
        ParamSources previous = current;
        current = sources;
        return () -> current = previous;
    }

    /** Restores the previous sources when closed. */
    @FunctionalInterface
    public interface Installed extends AutoCloseable {
        @Override
        void close();
    }

    /** The value set for {@code name} and where it was found, or null when unset or blank everywhere. */
    public Found find(String name) {
        String v = properties.apply(name);
        if (v != null && !v.isBlank()) {
            return new Found(v.trim(), Origin.SYSTEM_PROPERTY, null);
        }
        v = environment.apply(name);
        if (v != null && !v.isBlank()) {
            return new Found(v.trim(), Origin.ENVIRONMENT, null);
        }
        Found f = conf().get(name);
        return f == null || f.value().isBlank() ? null : f;
    }

    /** The system property {@code name} only (internal {@code jccl.*} knobs), or null when unset or blank. */
    public Found property(String name) {
        String v = properties.apply(name);
        return v == null || v.isBlank() ? null : new Found(v.trim(), Origin.SYSTEM_PROPERTY, null);
    }

    /** The raw text set for {@code name}, or null. */
    public String raw(String name) {
        Found f = find(name);
        return f == null ? null : f.value();
    }

    /** Every name starting with one of {@code prefixes} that is set anywhere, sorted. */
    public java.util.SortedSet<String> namesStartingWith(String... prefixes) {
        TreeSet<String> out = new TreeSet<>();
        List<String> all = new ArrayList<>(propertyNames.get());
        all.addAll(environmentNames.get());
        all.addAll(conf().keySet());
        for (String n : all) {
            for (String p : prefixes) {
                if (n.startsWith(p)) {
                    out.add(n);
                }
            }
        }
        return out;
    }

    /** Lines of the config files that could not be read or parsed. */
    public synchronized List<String> problems() {
        conf();
        return Collections.unmodifiableList(new ArrayList<>(problems));
    }

    private synchronized Map<String, Found> conf() {
        if (confValues == null) {
            Map<String, Found> values = new LinkedHashMap<>();
            String user = firstSet("NCCL_CONF_FILE");
            Path userFile = user != null ? Path.of(user)
                    : Path.of(System.getProperty("user.home", "/nonexistent"), ".nccl.conf");
            load(systemConf, values, false);
            load(userFile, values, user != null);
            confValues = values;
        }
        return confValues;
    }

    private String firstSet(String name) {
        String v = properties.apply(name);
        if (v == null || v.isBlank()) {
            v = environment.apply(name);
        }
        return v == null || v.isBlank() ? null : v.trim();
    }

    /** Reads one file; later files override earlier ones (the user's file is loaded after /etc/nccl.conf). */
    private void load(Path file, Map<String, Found> into, boolean mustExist) {
        if (!Files.isRegularFile(file)) {
            if (mustExist) {
                problems.add("NCCL_CONF_FILE=" + file + " does not exist or is not a file");
            }
            return;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            problems.add("cannot read config file " + file + ": " + e.getMessage());
            return;
        }
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                problems.add(file + ":" + (i + 1) + ": expected NAME=value, got '" + line + "'");
                continue;
            }
            into.put(line.substring(0, eq).strip(), new Found(line.substring(eq + 1).strip(), Origin.CONFIG_FILE,
                    file.toString()));
        }
    }
}
