package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;
import io.jccl.launch.Placement;
import io.jccl.launch.Rendezvous;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Tasks of a Slurm step without PMIx ({@code srun --mpi=none}, or libpmix missing): the bootstrap root runs on the
 * step's first host, where task 0 runs under Slurm's block and cyclic distributions, on {@code MASTER_PORT}, else
 * {@code JCCL_ROOT_PORT}, else a port derived from {@code SLURM_JOB_ID} and {@code SLURM_STEP_ID} in
 * [{@link #PORT_BASE}, {@link #PORT_BASE} + {@link #PORT_SPAN}). Every task derives the same id from that address
 * (and {@code JCCL_COMM_SECRET} when set); rank 0 binds the port. {@code MASTER_ADDR}, when set, names the root host
 * instead of the node list.
 *
 * <p>Owned by: the calling thread (stateless). Mirrors: Lightning's SLURMEnvironment (first host of the node list,
 * a port from the job id).
 */
public final class SlurmRendezvous implements Rendezvous {
    /** The lowest derived port. */
    static final int PORT_BASE = 15000;
    /** How many ports the derived ones spread over. */
    static final int PORT_SPAN = 10000;
    private static final List<String> NODE_LISTS = List.of("SLURM_STEP_NODELIST", "SLURM_NODELIST",
            "SLURM_JOB_NODELIST");

    @Override
    public String name() {
        return "slurm";
    }

    /** Below PMIx (50), which the same srun offers with --mpi=pmix; above MASTER_ADDR alone (10). */
    @Override
    public int priority() {
        return 40;
    }

    @Override
    public boolean detect(Map<String, String> env) {
        return env.containsKey("SLURM_PROCID") && env.containsKey("SLURM_NTASKS") && nodeList(env) != null;
    }

    /** Rank and sizes from Slurm's own variables, whatever else the environment holds. */
    @Override
    public Placement placement(Map<String, String> env) {
        Map<String, String> slurm = new TreeMap<>();
        env.forEach((k, v) -> {
            if (k.startsWith("SLURM_")) {
                slurm.put(k, v);
            }
        });
        return EnvPlacement.find(slurm).orElseThrow(() -> new JcclException(Result.INVALID_ARGUMENT,
                "slurm: SLURM_PROCID and SLURM_NTASKS are not set: start the tasks with srun"));
    }

    @Override
    public UniqueId shareId(Placement self, Supplier<UniqueId> newId, Duration timeout) {
        return shareId(self, System.getenv());
    }

    UniqueId shareId(Placement self, Map<String, String> env) {
        String hostPort = rootAddress(env, self.rank());
        UniqueId id = AddressRendezvous.serveOrJoin(hostPort, AddressRendezvous.parseHostPort(hostPort), "",
                self.rank());
        Log.info(Subsys.BOOTSTRAP, self.rank(), "slurm: bootstrap root %s (%s)", hostPort,
                env.containsKey("MASTER_ADDR") ? "MASTER_ADDR" : "first host of " + nodeListName(env));
        return id;
    }

    /** {@code host:port} of the root: the step's first host (or MASTER_ADDR) and {@link #port}. */
    static String rootAddress(Map<String, String> env, int rank) {
        String host = env.get("MASTER_ADDR");
        if (host == null || host.isBlank()) {
            String name = nodeListName(env);
            if (name == null) {
                throw new JcclException(Result.INVALID_ARGUMENT, "slurm: no node list: none of " + NODE_LISTS
                        + " is set (start the tasks with srun) and no MASTER_ADDR");
            }
            List<String> hosts = SlurmHosts.expand(env.get(name));
            if (hosts.isEmpty()) {
                throw new JcclException(Result.INVALID_ARGUMENT, "slurm: " + name + " is empty");
            }
            host = hosts.getFirst();
            int node = EnvPlacement.optionalInt(env, "SLURM_NODEID");
            if (rank == 0 && node > 0) {
                throw new JcclException(Result.INVALID_USAGE, "slurm: task 0 runs on node " + node
                        + " of the step (SLURM_NODEID), not on its first host " + host + " of " + name
                        + ", where the other tasks look for the bootstrap root: use srun's default block "
                        + "distribution, or set MASTER_ADDR to task 0's host");
            }
        }
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port(env);
    }

    /** MASTER_PORT, else JCCL_ROOT_PORT, else one derived from the job and step ids. */
    static int port(Map<String, String> env) {
        String master = env.get("MASTER_PORT");
        if (master != null && !master.isBlank()) {
            return checkedPort(EnvPlacement.parseInt(master, "MASTER_PORT"), "MASTER_PORT");
        }
        int configured = Params.ROOT_PORT.get();
        if (configured > 0) {
            return configured;
        }
        String job = first(env, "SLURM_JOB_ID", "SLURM_JOBID");
        String step = first(env, "SLURM_STEP_ID", "SLURM_STEPID");
        if (job == null || step == null) {
            throw new JcclException(Result.INVALID_ARGUMENT, "slurm: SLURM_JOB_ID or SLURM_STEP_ID is not set: set "
                    + "MASTER_PORT or " + Params.ROOT_PORT.name() + " to the bootstrap root's port");
        }
        return derivedPort(parseLong(job, "SLURM_JOB_ID"), parseLong(step, "SLURM_STEP_ID"));
    }

    /** A port in [PORT_BASE, PORT_BASE + PORT_SPAN): steps of one job 1 apart, consecutive jobs 16 apart. */
    static int derivedPort(long jobId, long stepId) {
        return PORT_BASE + (int) Math.floorMod(jobId * 16 + stepId, (long) PORT_SPAN);
    }

    private static int checkedPort(int port, String what) {
        if (port < 1 || port > 65535) {
            throw new JcclException(Result.INVALID_ARGUMENT, what + "=" + port + " is not a port");
        }
        return port;
    }

    private static String nodeList(Map<String, String> env) {
        String name = nodeListName(env);
        return name == null ? null : env.get(name);
    }

    private static String nodeListName(Map<String, String> env) {
        for (String n : NODE_LISTS) {
            String v = env.get(n);
            if (v != null && !v.isBlank()) {
                return n;
            }
        }
        return null;
    }

    private static String first(Map<String, String> env, String a, String b) {
        String v = env.get(a);
        return v != null && !v.isBlank() ? v.trim() : env.get(b);
    }

    private static long parseLong(String v, String what) {
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, what + "='" + v + "' is not a number");
        }
    }
}
