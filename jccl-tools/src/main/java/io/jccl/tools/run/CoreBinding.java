package io.jccl.tools.run;

import io.jccl.internal.topology.CpuSet;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which CPUs each local rank may run on: the launcher's CPUs cut into equal, disjoint blocks, one per rank, applied
 * with {@code taskset -c} when the rank's JVM starts (so its JIT, GC and channel threads stay on its block). A rank
 * that keeps its core keeps its caches and never waits for a peer the scheduler put on the same core; Open MPI's
 * mpirun binds the same way by default. A value computed once per job on the launcher thread. Mirrors: mpirun's
 * {@code --bind-to core}/{@code --bind-to none} and NCCL's CPU affinity setting.
 *
 * @param cpus each rank's block, or an empty list when the ranks are not bound
 */
public record CoreBinding(List<CpuSet> cpus) {
    /** The variable that chooses the policy when {@code --bind-to} is not given. */
    public static final String ENV = "JCCL_BIND_TO";

    public CoreBinding {
        cpus = List.copyOf(cpus);
    }

    /** How ranks are bound. */
    public enum Policy {
        /** {@link #CORE} when every rank gets at least one CPU of its own, else {@link #NONE} (mpirun's rule). */
        AUTO,
        /** Each rank gets an equal block of the launcher's CPUs (one core each on a small machine). */
        CORE,
        /** Ranks float over every CPU. */
        NONE;

        /**
         * Parses a {@code --bind-to} value.
         *
         * @param s core, none or auto (any case); null or blank gives {@link #AUTO} (when asked for without a value)
         * @return the policy
         * @throws IllegalArgumentException on another value
         */
        public static Policy parse(String s) {
            if (s == null || s.isBlank()) {
                return AUTO;
            }
            try {
                return valueOf(s.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--bind-to (or " + ENV + ") must be core, none or auto, got '" + s
                        + "'", e);
            }
        }
    }

    /**
     * The policy when neither {@code --bind-to} nor {@value #ENV} says: none. On the 2-core build machine binding
     * measured faster at some sizes and slower at others from run to run (0.5-2 MiB allReduce 20-40% faster in some
     * runs; 32-128 KiB up to 1.5x slower, where two floating ranks sometimes share one core's cache, and a rank's JIT
     * compiles then share its core), so it is offered, not imposed.
     */
    public static final Policy DEFAULT = Policy.NONE;

    /** No binding. */
    public static final CoreBinding NONE = new CoreBinding(List.of());

    /**
     * Plans the binding of {@code nRanks} local ranks over {@code allowed} CPUs.
     *
     * @param policy  the requested policy
     * @param nRanks  local ranks
     * @param allowed the launcher's CPUs (empty when unknown: no binding)
     * @return each rank's CPUs, or {@link #NONE}
     * @throws IllegalArgumentException when {@link Policy#CORE} is asked for more ranks than CPUs
     */
    public static CoreBinding plan(Policy policy, int nRanks, CpuSet allowed) {
        int[] ids = allowed.ids();
        if (policy == Policy.NONE || ids.length == 0 || nRanks < 1) {
            return NONE;
        }
        int per = ids.length / nRanks;
        if (per == 0) {
            if (policy == Policy.CORE) {
                throw new IllegalArgumentException("--bind-to core needs a CPU per rank: " + nRanks + " ranks but "
                        + ids.length + " CPUs (" + allowed + "); use --bind-to none to oversubscribe");
            }
            return NONE;
        }
        List<CpuSet> blocks = new ArrayList<>(nRanks);
        for (int r = 0; r < nRanks; r++) {
            StringBuilder b = new StringBuilder();
            for (int i = r * per; i < (r + 1) * per; i++) {
                b.append(b.isEmpty() ? "" : ",").append(ids[i]);
            }
            blocks.add(CpuSet.parse(b.toString()));
        }
        return new CoreBinding(blocks);
    }

    /**
     * The binding a local job gets: {@code requested} (else {@value #ENV}, else {@link #DEFAULT}) over this process's
     * CPUs, or none
     * when {@code taskset} is not installed (said on {@code err} unless the binding was only automatic).
     *
     * @param requested the {@code --bind-to} value, or null
     * @param nRanks    local ranks
     * @param err       where a note goes when binding was asked for but is impossible
     * @return the binding
     */
    public static CoreBinding forLocalJob(String requested, int nRanks, java.io.PrintStream err) {
        String chosen = requested != null ? requested : System.getenv(ENV);
        Policy p = chosen == null || chosen.isBlank() ? DEFAULT : Policy.parse(chosen);
        if (p == Policy.NONE) {
            return NONE;
        }
        if (TASKSET == null) {
            if (p == Policy.CORE) {
                err.println("jccl run: cannot bind ranks to cores: 'taskset' (util-linux) is not on the PATH; "
                        + "running unbound");
            }
            return NONE;
        }
        return plan(p, nRanks, CpuSet.ofThisProcess());
    }

    /** @return true when no rank is bound */
    public boolean isNone() {
        return cpus.isEmpty();
    }

    /**
     * The command that starts {@code rank} with its binding.
     *
     * @param rank    the rank
     * @param command the rank's JVM command line
     * @return {@code taskset -c <cpus> command...}, or {@code command} when unbound
     */
    public List<String> command(int rank, List<String> command) {
        if (isNone()) {
            return command;
        }
        List<String> c = new ArrayList<>(command.size() + 3);
        c.add(TASKSET != null ? TASKSET : "taskset");
        c.add("-c");
        c.add(cpus.get(rank).toString());
        c.addAll(command);
        return c;
    }

    /** @return e.g. "ranks bound to CPUs 0 | 1" for the launcher's banner, or "" when unbound */
    public String describe() {
        if (isNone()) {
            return "";
        }
        StringBuilder b = new StringBuilder("ranks bound to CPUs ");
        for (int r = 0; r < cpus.size(); r++) {
            b.append(r == 0 ? "" : " | ").append(cpus.get(r));
        }
        return b.append(" (--bind-to none to let them float)").toString();
    }

    /** Where taskset is, looked up once on the PATH; null when it is not installed. */
    private static final String TASKSET = locateTaskset();

    private static String locateTaskset() {
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "/usr/bin:/bin" : path).split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "taskset");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
