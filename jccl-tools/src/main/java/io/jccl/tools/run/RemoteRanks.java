package io.jccl.tools.run;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Starts ranks on the hosts of a {@link RankPlacement} through a {@link RemoteShell}: each rank gets the job
 * variables, its host-local LOCAL_RANK/LOCAL_WORLD_SIZE, {@code NCCL_HOSTID} = its hostfile host (unless the
 * launcher's environment sets one), and the launcher's own {@code NCCL_*} and {@code JCCL_*}
 * variables plus any named with {@code -x} (what Open MPI's {@code -x} does), since ssh does not carry the
 * environment. The job secret goes down the rank's stdin; stdin stays open while the rank runs and is closed when it
 * ends or is stopped, which the remote script takes as "stop". The same java binary, flags and classpath are used on
 * every host (a shared or identical installation, as mpirun expects). Called on the launcher thread.
 */
public final class RemoteRanks implements RankStarter {
    /** Prefixes of launcher variables forwarded to every rank. */
    static final List<String> FORWARDED_PREFIXES = List.of("NCCL_", "JCCL_");

    /** NCCL's host id variable: ranks with equal values share a host, whatever their host names. */
    static final String HOST_ID = "NCCL_HOSTID";

    private final RankPlacement placement;
    private final RemoteShell rsh;
    private final Map<String, String> forwarded;
    private final String workDir;

    /**
     * @param placement   which host runs each rank
     * @param rsh         how to reach a host
     * @param launcherEnv the launcher's environment (the NCCL_/JCCL_ variables and the {@code exportNames} are taken)
     * @param exportNames further variable names to forward when set
     */
    public RemoteRanks(RankPlacement placement, RemoteShell rsh, Map<String, String> launcherEnv,
                       Set<String> exportNames) {
        this.placement = placement;
        this.rsh = rsh;
        this.forwarded = forwardable(launcherEnv, exportNames);
        this.workDir = Path.of("").toAbsolutePath().toString();
    }

    /** The launcher variables that travel to the ranks (never the launcher's own rank variables). */
    static Map<String, String> forwardable(Map<String, String> env, Set<String> exportNames) {
        Map<String, String> m = new HashMap<>();
        env.forEach((k, v) -> {
            boolean byPrefix = FORWARDED_PREFIXES.stream().anyMatch(k::startsWith);
            if ((byPrefix || exportNames.contains(k)) && !RankEnvironment.isForeign(k) && !k.equals("JCCL_RSH")) {
                m.put(k, v);
            }
        });
        return m;
    }

    /** The names forwarded to every rank, sorted (for messages and tests). */
    public Set<String> forwardedNames() {
        return new TreeSet<>(forwarded.keySet());
    }

    @Override
    public Process start(int rank, List<String> command, Map<String, String> vars) throws IOException {
        Map<String, String> all = new HashMap<>(forwarded);
        all.putAll(vars);
        all.put("LOCAL_RANK", Integer.toString(placement.localRank().get(rank)));
        all.put("LOCAL_WORLD_SIZE", Integer.toString(placement.localWorldSize().get(rank)));
        // NCCL hashes the host name and boot id, which network namespaces (and containers) of one machine share:
        // name each hostfile host, so that NCCL, run by the same ranks (perf --backend nccl), sees the hosts too
        all.putIfAbsent(HOST_ID, placement.hostOfRank().get(rank));
        String secret = all.getOrDefault(RemoteShell.SECRET, "");
        ProcessBuilder pb = new ProcessBuilder(rsh.argv(placement.hostOfRank().get(rank), command, all, workDir));
        // an exec-style rsh (ip netns exec) passes our environment on: keep other launchers' rank variables out
        pb.environment().keySet().removeIf(RankEnvironment::isForeign);
        Process p = pb.start();
        OutputStream in = p.getOutputStream();
        try {
            in.write((secret + "\n").getBytes(StandardCharsets.US_ASCII));
            in.flush();
        } catch (IOException e) {
            // the rsh already exited (host unreachable); its exit code and stderr tell the user why
        }
        return p;
    }

    @Override
    public void ended(int rank, Process process) {
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // already closed: nothing left to tell the remote side
        }
    }

    @Override
    public String where(int rank) {
        return "host " + placement.hostOfRank().get(rank);
    }

    @Override
    public boolean isLocal() {
        return false;
    }
}
