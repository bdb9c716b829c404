package io.jccl.internal.debug;

import io.jccl.Jccl;
import io.jccl.internal.param.ParamCheck;
import io.jccl.internal.param.ParamSources;
import io.jccl.internal.param.Params;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the process tells once, at its first communicator init: the version line (when NCCL_DEBUG is set), every
 * parameter set and where (INFO, subsystem ENV, as NCCL's "NCCL_X set by environment to Y"), NCCL variables JCCL
 * ignores (INFO ENV), and, as warnings, unknown NCCL_* / JCCL_* names with a suggestion, unusable values and
 * config-file problems.
 *
 * <p>Owned by: the first initialising thread (later calls return at once). Mirrors: NCCL's version print in
 * ncclInit and the ENV lines of ncclLoadParam.
 */
public final class EnvReport {
    private static final AtomicBoolean DONE = new AtomicBoolean();

    private EnvReport() {
    }

    /** Reports once per process; {@code rank} is the rank of the communicator being created. */
    public static void atFirstInit(int rank) {
        if (DONE.compareAndSet(false, true)) {
            report(rank, ParamSources.current());
        }
    }

    /** Reports what {@code sources} hold (every time; tests). */
    static void report(int rank, ParamSources sources) {
        if (sources.find(Params.DEBUG_LEVEL.name()) != null) {
            Log.version("%s", versionLine());
        }
        if (Log.enabled(Log.Level.INFO, Subsys.ENV)) {
            for (ParamCheck.SetValue v : ParamCheck.setValues(sources)) {
                Log.info(Subsys.ENV, rank, "%s set by %s to %s.", v.param().name(), v.found().describe(),
                        v.param().shown(v.found().value()));
            }
        }
        for (ParamCheck.Finding f : ParamCheck.inspect(sources)) {
            if (f.kind() == ParamCheck.Kind.NO_EFFECT) {
                Log.info(Subsys.ENV, rank, "%s", f.message());
            } else {
                Log.warn(rank, "%s", f.message());
            }
        }
    }

    /** E.g. {@code JCCL version 0.1.0 (Java 25+36-LTS, Linux amd64, 16 cores)}. */
    public static String versionLine() {
        return "JCCL version " + Jccl.VERSION + " (Java " + Runtime.version() + ", " + System.getProperty("os.name")
                + " " + System.getProperty("os.arch") + ", " + Runtime.getRuntime().availableProcessors() + " cores)";
    }
}
