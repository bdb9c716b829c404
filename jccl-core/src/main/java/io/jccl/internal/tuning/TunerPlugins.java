package io.jccl.internal.tuning;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Finds the tuner plugin named by NCCL_TUNER_PLUGIN among the {@link TunerPlugin} services on the class/module path.
 *
 * <p>Stateless; called once per communicator on the initialising thread. Mirrors NCCL's tuner loader (v6→v2 symbol
 * search replaced by ServiceLoader).
 */
public final class TunerPlugins {
    private static final System.Logger LOG = System.getLogger("io.jccl.tuning");

    private TunerPlugins() {
    }

    /** Every available plugin, sorted by class name (deterministic). */
    public static List<TunerPlugin> available(ClassLoader loader) {
        Module self = TunerPlugins.class.getModule();
        if (self.isNamed()) {
            self.addUses(TunerPlugin.class);
        }
        List<TunerPlugin> found = new ArrayList<>();
        try {
            ServiceLoader<TunerPlugin> sl = loader == null ? ServiceLoader.load(TunerPlugin.class)
                    : ServiceLoader.load(TunerPlugin.class, loader);
            sl.forEach(found::add);
        } catch (ServiceConfigurationError e) {
            throw new JcclException(Result.INVALID_ARGUMENT, "a tuner plugin could not be loaded: " + e.getMessage()
                    + " (check META-INF/services/" + TunerPlugin.class.getName() + ")", e);
        }
        found.sort(Comparator.comparing(p -> p.getClass().getName()));
        return found;
    }

    /**
     * The plugin to use: none when {@code setting} is "none" or nothing is installed; the one whose name or class name
     * matches {@code setting}; the first one when {@code setting} is null. A setting that matches nothing is an
     * INVALID_ARGUMENT listing what is installed.
     */
    public static TunerPlugin select(String setting, List<TunerPlugin> available) {
        if (setting != null && setting.equalsIgnoreCase("none")) {
            return null;
        }
        if (setting == null) {
            return available.isEmpty() ? null : available.get(0);
        }
        for (TunerPlugin p : available) {
            if (p.name().equalsIgnoreCase(setting) || p.getClass().getName().equals(setting)
                    || p.getClass().getSimpleName().equalsIgnoreCase(setting)) {
                return p;
            }
        }
        List<String> names = available.stream().map(TunerPlugin::name).toList();
        throw new JcclException(Result.INVALID_ARGUMENT, "NCCL_TUNER_PLUGIN=" + setting + " matches no installed tuner"
                + " plugin (installed: " + (names.isEmpty() ? "none" : String.join(", ", names)) + "); unset it or use"
                + " 'none'");
    }

    static void warn(String msg, Throwable t) {
        LOG.log(System.Logger.Level.WARNING, msg, t);
    }
}
