package io.jccl.tools.run.netns;

import io.jccl.tools.run.Hostfile;
import io.jccl.tools.run.JvmCommandLine;
import io.jccl.tools.run.LaunchResult;
import io.jccl.tools.run.LaunchSpec;
import io.jccl.tools.run.LocalJob;
import io.jccl.tools.run.RankEnvironment;
import io.jccl.tools.run.RankPlacement;
import io.jccl.tools.run.RemoteRanks;
import io.jccl.tools.run.RemoteShell;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs a job of {@link CrossHostCheck} ranks on namespace hosts through the hostfile launcher with
 * {@code ip netns exec} as the remote shell, exactly as {@code ./jccl run --hostfile F --rsh 'ip netns exec'} does,
 * capturing its output. Used by the test thread.
 */
final class HostJobs {
    private HostJobs() {
    }

    /** How a job ended, with everything it printed. */
    record Outcome(LaunchResult result, String out, String err, long millis) {
        /** The launcher's and the ranks' output together, for assertion messages. */
        String all() {
            return out + "\n--- stderr ---\n" + err;
        }
    }

    /**
     * Starts {@code ranksPerHost} ranks on every host of {@code hosts} running {@link CrossHostCheck} {@code args},
     * with the veths as NCCL_SOCKET_IFNAME, {@code env} added, and an overall {@code timeout}.
     */
    static Outcome run(NetnsHosts hosts, Path dir, int ranksPerHost, Duration timeout, Map<String, String> env,
                       String... args) {
        return run(hosts, dir, ranksPerHost, timeout, env, new Live(), args);
    }

    /** The output of a running job, readable while it runs. */
    static final class Live {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();

        String text() {
            return out.toString(StandardCharsets.UTF_8);
        }

        /** Waits up to {@code timeoutMs} for a stdout line starting with {@code prefix}. */
        boolean awaitLine(String prefix, long timeoutMs) throws InterruptedException {
            long end = System.nanoTime() + timeoutMs * 1_000_000;
            while (System.nanoTime() < end) {
                if (text().lines().anyMatch(l -> l.startsWith(prefix))) {
                    return true;
                }
                Thread.sleep(50);
            }
            return false;
        }
    }

    /** As {@link #run(NetnsHosts, Path, int, Duration, Map, String...)}, the output going to {@code live}. */
    static Outcome run(NetnsHosts hosts, Path dir, int ranksPerHost, Duration timeout, Map<String, String> env,
                       Live live, String... args) {
        return run(hosts, dir, ranksPerHost, timeout, env, live, CrossHostCheck.class, args);
    }

    /** As {@link #run(NetnsHosts, Path, int, Duration, Map, Live, String...)}, each rank running {@code main}. */
    static Outcome run(NetnsHosts hosts, Path dir, int ranksPerHost, Duration timeout, Map<String, String> env,
                       Live live, Class<?> main, String... args) {
        int n = hosts.size() * ranksPerHost;
        Hostfile file = Hostfile.read(hosts.hostfile(dir, ranksPerHost));
        RankPlacement placement = RankPlacement.bySlot(file, n);
        Map<String, String> vars = new HashMap<>(env);
        vars.put("NCCL_SOCKET_IFNAME", hosts.socketIfName());
        LaunchSpec spec = LaunchSpec.of(n, main.getName(), List.of(args)).withTimeout(timeout)
                .withExtraEnv(vars);
        RemoteRanks ranks = new RemoteRanks(placement, RemoteShell.parse("ip netns exec"), Map.of(), Set.of());
        ByteArrayOutputStream out = live.out;
        ByteArrayOutputStream err = live.err;
        long t0 = System.nanoTime();
        LaunchResult r = new LocalJob(spec, JvmCommandLine.current(), ranks,
                RankEnvironment.create(n, hosts.address(0)), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run();
        return new Outcome(r, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                (System.nanoTime() - t0) / 1_000_000);
    }
}
