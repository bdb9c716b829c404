package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Param;
import io.jccl.internal.param.Params;
import io.jccl.launch.Placement;
import io.jccl.launch.Rendezvous;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes Indexed Jobs, one rank per pod: found by {@code JOB_COMPLETION_INDEX}, which is the rank; the size is
 * {@code WORLD_SIZE} or {@code JCCL_WORLD_SIZE} (the Job's completions; Kubernetes exports no count, so one of them is
 * required); the local rank and size are {@code LOCAL_RANK} and {@code LOCAL_WORLD_SIZE}, else 0 and 1. Rank 0's
 * bootstrap root listens on {@code MASTER_PORT}, else {@code JCCL_K8S_PORT} (29500), at {@code MASTER_ADDR}, else at
 * {@code <job>-0.<service>}: the DNS name the Job's headless Service ({@code JCCL_K8S_SERVICE}, the pod template's
 * subdomain) gives the pod of index 0, the job being this pod's {@code HOSTNAME} less its {@code -<index>} suffix.
 * Every rank resolves that name, retrying until the deadline (a pod's name appears once it is scheduled) with a line
 * every {@code JCCL_WAIT_LOG_MS} (10 s), and derives the id from it as {@link AddressRendezvous} does (with
 * {@code JCCL_COMM_SECRET} when set).
 *
 * <p>Owned by: the calling thread (stateless). Mirrors: the Indexed Job pattern of the Kubernetes documentation
 * (stable pod host names under a headless Service) as PyTorch and MPI operators use it.
 */
public final class KubernetesRendezvous implements Rendezvous {
    /** Host name lookup, replaceable in tests. */
    @FunctionalInterface
    interface Resolver {
        InetAddress resolve(String host) throws UnknownHostException;
    }

    private static final Pattern INDEXED_HOST = Pattern.compile("(.+)-(\\d+)");

    private final Supplier<Map<String, String>> environment;
    private final Resolver resolver;
    private final Duration retryPause;
    private final Supplier<Duration> progressEvery;

    public KubernetesRendezvous() {
        this(System::getenv, InetAddress::getByName, Duration.ofMillis(500),
                () -> Duration.ofMillis(Params.WAIT_LOG_MS.get()));
    }

    /** A rendezvous reading {@code environment} and resolving with {@code resolver} (for tests). */
    KubernetesRendezvous(Supplier<Map<String, String>> environment, Resolver resolver, Duration retryPause,
            Supplier<Duration> progressEvery) {
        this.environment = environment;
        this.resolver = resolver;
        this.retryPause = retryPause;
        this.progressEvery = progressEvery;
    }

    @Override
    public String name() {
        return "kubernetes";
    }

    /** Below the launchers that may run inside a pod (torchrun 60, pmix 50, slurm 40): their ranks win. */
    @Override
    public int priority() {
        return 30;
    }

    @Override
    public boolean detect(Map<String, String> env) {
        String index = env.get("JOB_COMPLETION_INDEX");
        return index != null && !index.isBlank();
    }

    @Override
    public Placement placement(Map<String, String> env) {
        String index = env.get("JOB_COMPLETION_INDEX");
        if (index == null || index.isBlank()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "kubernetes: no JOB_COMPLETION_INDEX (is this pod "
                    + "part of a Job with completionMode: Indexed?)");
        }
        int rank = EnvPlacement.parseInt(index, "JOB_COMPLETION_INDEX");
        String sizeName = env.containsKey("WORLD_SIZE") ? "WORLD_SIZE" : Params.WORLD_SIZE.name();
        String sizeText = env.get(sizeName);
        if (sizeText == null || sizeText.isBlank()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "kubernetes: JOB_COMPLETION_INDEX=" + index
                    + " gives the rank, but nothing gives the number of ranks: set WORLD_SIZE (or JCCL_WORLD_SIZE) "
                    + "to the Job's completions in the pod template's env (docs/launchers.md)");
        }
        int size = EnvPlacement.parseInt(sizeText, sizeName);
        if (rank < 0 || rank >= size) {
            throw new JcclException(Result.INVALID_ARGUMENT, "kubernetes: JOB_COMPLETION_INDEX=" + index
                    + " is not in [0, " + sizeName + "=" + sizeText + "): WORLD_SIZE must equal the Job's "
                    + "completions");
        }
        int localRank = EnvPlacement.optionalInt(env, "LOCAL_RANK");
        int localSize = EnvPlacement.optionalInt(env, "LOCAL_WORLD_SIZE");
        if (localRank < 0 && localSize < 0) {
            localRank = 0;
            localSize = 1;
        }
        try {
            return new Placement(rank, size, localRank, localSize, name());
        } catch (IllegalArgumentException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, e.getMessage() + " (LOCAL_RANK=" + env.get("LOCAL_RANK")
                    + ", LOCAL_WORLD_SIZE=" + env.get("LOCAL_WORLD_SIZE") + ")");
        }
    }

    @Override
    public UniqueId shareId(Placement self, Supplier<UniqueId> newId, Duration timeout) {
        Map<String, String> env = environment.get();
        String host = rootHost(env, self.rank());
        int port = rootPort(env);
        String hostPort = (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        InetAddress address = resolve(host, self.rank(), timeout);
        UniqueId id = AddressRendezvous.serveOrJoin(hostPort, new InetSocketAddress(address, port), "", self.rank());
        if (self.rank() == 0) {
            Log.info(Subsys.BOOTSTRAP, 0, "kubernetes: rank 0 serves the bootstrap root on port %d as %s (%s)", port,
                    host, address.getHostAddress());
        }
        return id;
    }

    /** {@code MASTER_ADDR}, else {@code <job>-0.<service>}. */
    static String rootHost(Map<String, String> env, int rank) {
        String master = env.get("MASTER_ADDR");
        if (master != null && !master.isBlank()) {
            String m = master.trim();
            return m.startsWith("[") && m.endsWith("]") ? m.substring(1, m.length() - 1) : m;
        }
        String service = value(env, Params.K8S_SERVICE);
        if (service.isBlank()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "kubernetes: rank " + rank + " has no root address: "
                    + "set " + Params.K8S_SERVICE.name() + " to the Job's headless Service (the pod template's "
                    + "subdomain), so that rank 0 is <job>-0.<service>, or set MASTER_ADDR");
        }
        String hostname = env.get("HOSTNAME");
        Matcher m = INDEXED_HOST.matcher(hostname == null ? "" : hostname.trim());
        if (!m.matches()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "kubernetes: rank " + rank + ": HOSTNAME="
                    + hostname + " is not <job>-<index>, so rank 0's name is unknown: set MASTER_ADDR");
        }
        return m.group(1) + "-0." + service.trim();
    }

    private static int rootPort(Map<String, String> env) {
        String master = env.get("MASTER_PORT");
        if (master != null && !master.isBlank()) {
            return EnvPlacement.parseInt(master, "MASTER_PORT");
        }
        String v = env.get(Params.K8S_PORT.name());
        if (v == null) {
            return Params.K8S_PORT.get();
        }
        String problem = Params.K8S_PORT.problemWith(v);
        if (problem != null) {
            throw new JcclException(Result.INVALID_ARGUMENT, Params.K8S_PORT.name() + "=" + v + " " + problem);
        }
        return EnvPlacement.parseInt(v, Params.K8S_PORT.name());
    }

    /** The map's value of {@code p} when it has one (tests), else the parameter's. */
    private static String value(Map<String, String> env, Param<String> p) {
        String v = env.get(p.name());
        return v != null ? v : p.get();
    }

    private InetAddress resolve(String host, int rank, Duration timeout) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long every = progressEvery.get().toNanos();
        long nextProgress = start + every;
        UnknownHostException last;
        while (true) {
            try {
                return resolver.resolve(host);
            } catch (UnknownHostException e) {
                last = e;
            }
            long now = System.nanoTime();
            if (now - deadline >= 0) {
                break;
            }
            if (now - nextProgress >= 0) {
                Log.warn(rank, "kubernetes: rank %d still cannot resolve rank 0's host %s after %s (its pod gets "
                        + "the name once scheduled; the headless Service needs publishNotReadyAddresses: true)",
                        rank, host, seconds(now - start));
                nextProgress += every;
            }
            try {
                Thread.sleep(Math.max(1, Math.min(retryPause.toMillis(), Duration.ofNanos(deadline - now)
                        .toMillis())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new JcclException(Result.SYSTEM_ERROR, "kubernetes: rank " + rank + " interrupted while "
                        + "resolving " + host, e);
            }
        }
        throw new JcclException(Result.TIMEOUT, "kubernetes: rank " + rank + " could not resolve rank 0's host "
                + host + " in " + seconds(System.nanoTime() - start) + " (" + last.getMessage() + "): is "
                + Params.K8S_SERVICE.name() + " the Job's headless Service with publishNotReadyAddresses: true, and "
                + "the pod template's subdomain?", last);
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
