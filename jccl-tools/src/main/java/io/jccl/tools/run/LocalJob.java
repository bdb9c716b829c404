package io.jccl.tools.run;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link LaunchSpec}: starts one JVM per rank with its {@link RankEnvironment} (on this host, or on the hosts
 * of a hostfile through a {@link RankStarter} such as {@link RemoteRanks}), copies their output with
 * rank labels, and supervises them. Rank 0's process answers status queries on a free port ({@code NCCL_RAS_ADDR},
 * announced on stderr for {@code ./jccl ras}). When a rank exits non-zero (or the timeout passes) it says which rank
 * failed and with which code, gives the others {@link #REPORT_GRACE_NS} to notice the loss and report it (JCCL
 * names the lost rank in their errors), then stops them: {@code destroy()} (SIGTERM) first,
 * {@code destroyForcibly()} (SIGKILL) after {@link #GRACE_NS}. A JVM shutdown hook (Ctrl-C on the launcher) stops all
 * children the same way.
 * Owned by the thread that calls {@link #run}; the pumps run on their own daemon threads. Plays the part of
 * mpirun/torchrun's process supervision.
 */
public final class LocalJob {
    /** How long stopped ranks get to exit on SIGTERM before they are killed. */
    static final long GRACE_NS = TimeUnit.SECONDS.toNanos(2);
    /** How long the other ranks get, after one failed, to report the failure and exit on their own. */
    static final long REPORT_GRACE_NS = TimeUnit.SECONDS.toNanos(3);
    private static final long PUMP_DRAIN_MS = 5_000;
    private static final String RAS_ADDR = "NCCL_RAS_ADDR";

    private final LaunchSpec spec;
    private final JvmCommandLine jvm;
    private final RankStarter starter;
    private final RankEnvironment env;
    private final PrintStream out;
    private final PrintStream err;
    private final List<Process> processes = new ArrayList<>();
    private final List<Thread> pumps = new ArrayList<>();
    private final LinkedBlockingQueue<Integer> exited = new LinkedBlockingQueue<>();
    private volatile boolean interrupted;

    public LocalJob(LaunchSpec spec, JvmCommandLine jvm, PrintStream out, PrintStream err) {
        this(spec, jvm, RankStarter.local(), RankEnvironment.create(spec.nRanks()), out, err);
    }

    /**
     * A job whose ranks {@code starter} starts (on other hosts: {@link RemoteRanks}) with {@code env}'s variables.
     *
     * @param spec    what to run
     * @param jvm     the java command line of every rank
     * @param starter starts each rank's process
     * @param env     the job variables (the bootstrap root's address must be reachable from every rank)
     * @param out     where the ranks' stdout lines go
     * @param err     where the ranks' stderr lines and the launcher's messages go
     */
    public LocalJob(LaunchSpec spec, JvmCommandLine jvm, RankStarter starter, RankEnvironment env, PrintStream out,
                    PrintStream err) {
        if (env.worldSize() != spec.nRanks()) {
            throw new IllegalArgumentException("the job environment is for " + env.worldSize() + " ranks, not "
                    + spec.nRanks());
        }
        this.spec = spec;
        this.jvm = jvm.withExtraClasspath(spec.extraClasspath());
        this.starter = starter;
        this.env = env;
        this.out = out;
        this.err = err;
    }

    /** Runs {@code spec} with this JVM's java binary, flags and classpath, printing to System.out/err. */
    public static LaunchResult run(LaunchSpec spec) {
        return new LocalJob(spec, JvmCommandLine.current(), System.out, System.err).run();
    }

    /** Starts every rank, waits for the job to end, and returns how it ended. */
    public LaunchResult run() {
        Thread hook = Thread.ofPlatform().name("jccl-run-shutdown").unstarted(this::onShutdown);
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            startAll();
            return supervise();
        } finally {
            stopAllNow();
            drainPumps();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException alreadyShuttingDown) {
                // the hook is running or will run; nothing to undo
            }
        }
    }

    /** The launcher is being stopped (Ctrl-C, SIGTERM): take every rank down with it. */
    private void onShutdown() {
        interrupted = true;
        err.println("jccl run: interrupted; stopping all ranks");
        stopAllNow();
    }

    private void startAll() {
        List<String> cmd = jvm.command(spec.mainClass(), spec.args());
        CoreBinding binding = starter.isLocal() ? CoreBinding.forLocalJob(spec.bindTo(), spec.nRanks(), err)
                : CoreBinding.NONE;
        if (!binding.isNone()) {
            err.println("jccl run: " + binding.describe());
        }
        String ras = System.getenv(RAS_ADDR) != null || !starter.isLocal() ? null
                : RankEnvironment.LOOPBACK + ":" + RankEnvironment.freePort();
        if (ras != null && !spec.extraEnv().containsKey(RAS_ADDR)) {
            err.println("jccl run: " + spec.nRanks() + " rank(s); job status: ./jccl ras --port "
                    + ras.substring(ras.lastIndexOf(':') + 1));
        }
        for (int rank = 0; rank < spec.nRanks(); rank++) {
            Map<String, String> vars = new HashMap<>(env.forRank(rank));
            if (ras != null) {
                vars.put(RAS_ADDR, ras);
            }
            vars.putAll(spec.extraEnv());
            Process p;
            try {
                p = starter.start(rank, binding.command(rank, cmd), vars);
            } catch (IOException e) {
                throw new IllegalStateException("cannot start rank " + rank + " on " + starter.where(rank) + " with "
                        + cmd.getFirst() + ": " + e.getMessage()
                        + "; check that the java binary (and the remote shell) exist and are executable", e);
            }
            synchronized (processes) {
                processes.add(p);
            }
            boolean labelled = spec.labels() == LaunchSpec.Labels.ALL || rank != 0;
            String prefix = labelled ? "[" + rank + "] " : "";
            pumps.add(new LinePump(p.getInputStream(), prefix, out).start("rank-" + rank + "-stdout"));
            pumps.add(new LinePump(p.getErrorStream(), prefix, err).start("rank-" + rank + "-stderr"));
            final int r = rank;
            p.onExit().thenRun(() -> {
                starter.ended(r, p);
                exited.add(r);
            });
        }
    }

    private LaunchResult supervise() {
        int n = spec.nRanks();
        int[] codes = new int[n];
        Arrays.fill(codes, Integer.MIN_VALUE);
        long start = System.nanoTime();
        long deadline = spec.timeout() == null ? Long.MAX_VALUE : start + spec.timeout().toNanos();
        long killAt = Long.MAX_VALUE;
        long stopAt = Long.MAX_VALUE;
        int failedRank = -1;
        boolean timedOut = false;
        int remaining = n;
        while (remaining > 0) {
            long now = System.nanoTime();
            long wakeAt = Math.min(Math.min(timedOut || failedRank >= 0 ? Long.MAX_VALUE : deadline, killAt), stopAt);
            Integer rank = poll(wakeAt - now);
            if (rank != null) {
                remaining--;
                codes[rank] = processes.get(rank).exitValue();
                if (codes[rank] != 0 && failedRank < 0 && !timedOut && !interrupted) {
                    failedRank = rank;
                    err.println("jccl run: rank " + rank + " exited with code " + codes[rank]
                            + (starter.isLocal() ? "" : " (" + starter.where(rank) + ")")
                            + (remaining > 0 ? "; stopping the other " + remaining + " rank(s)" : ""));
                    stopAt = remaining > 0 ? System.nanoTime() + REPORT_GRACE_NS : Long.MAX_VALUE;
                }
                continue;
            }
            now = System.nanoTime();
            if (now >= stopAt) {
                stopAt = Long.MAX_VALUE;
                killAt = stopAll();
            } else if (now >= killAt) {
                killAll();
                killAt = Long.MAX_VALUE;
            } else if (now >= deadline && failedRank < 0 && !timedOut) {
                timedOut = true;
                err.println("jccl run: timeout after " + spec.timeout().toSeconds() + " s; stopping all "
                        + remaining + " running rank(s)");
                killAt = stopAll();
            }
        }
        List<Integer> list = Arrays.stream(codes).boxed().toList();
        if (timedOut) {
            return new LaunchResult(LaunchResult.TIMEOUT_EXIT_CODE, -1, 0, true, list);
        }
        if (failedRank >= 0) {
            int code = codes[failedRank];
            return new LaunchResult(code > 0 && code < 256 ? code : 1, failedRank, code, false, list);
        }
        return new LaunchResult(0, -1, 0, false, list);
    }

    private Integer poll(long timeoutNs) {
        try {
            return timeoutNs <= 0 ? exited.poll() : exited.poll(Math.min(timeoutNs, TimeUnit.SECONDS.toNanos(1)),
                    TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopAllNow();
            throw new IllegalStateException("jccl run: interrupted while waiting for the ranks; all were stopped", e);
        }
    }

    /** Asks every live rank to stop (SIGTERM); returns when the survivors should be killed. */
    private long stopAll() {
        List<Process> all = snapshot();
        for (int rank = 0; rank < all.size(); rank++) {
            Process p = all.get(rank);
            if (p.isAlive()) {
                starter.ended(rank, p);   // a remote rank's script stops it when its stdin closes
                p.descendants().forEach(ProcessHandle::destroy);
                p.destroy();
            }
        }
        return System.nanoTime() + GRACE_NS;
    }

    private void killAll() {
        for (Process p : snapshot()) {
            if (p.isAlive()) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
    }

    /** Stops everything still alive: SIGTERM, up to {@link #GRACE_NS} of waiting, then SIGKILL. Idempotent. */
    private void stopAllNow() {
        long killAt = stopAll();
        for (Process p : snapshot()) {
            long left = killAt - System.nanoTime();
            try {
                if (left > 0) {
                    p.waitFor(left, TimeUnit.NANOSECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        killAll();
    }

    private List<Process> snapshot() {
        synchronized (processes) {
            return List.copyOf(processes);
        }
    }

    private void drainPumps() {
        long end = System.currentTimeMillis() + PUMP_DRAIN_MS;
        for (Thread t : pumps) {
            try {
                t.join(Math.max(1, end - System.currentTimeMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
