package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;
import io.jccl.launch.Placement;
import io.jccl.launch.Rendezvous;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * torchrun (torch.distributed.run and its elastic agent): found by {@code TORCHELASTIC_RUN_ID},
 * {@code TORCHELASTIC_RESTART_COUNT} or {@code TORCHELASTIC_MAX_RESTARTS} with {@code MASTER_ADDR},
 * {@code MASTER_PORT}, {@code RANK} and {@code WORLD_SIZE}; the placement is {@code RANK}, {@code WORLD_SIZE},
 * {@code LOCAL_RANK} and {@code LOCAL_WORLD_SIZE}. The id is shared the way torch's {@code env://} shares its store,
 * by {@code TORCHELASTIC_USE_AGENT_STORE}:
 *
 * <ul>
 *   <li>{@code True} (the static rendezvous backend, and the newer agents): the agent already serves a TCPStore on
 *       {@code MASTER_ADDR:MASTER_PORT}, so nobody may bind it. Every rank connects to it as a client
 *       ({@link TcpStoreClient}, either dialect); rank 0 makes the id with {@code newId} (a bootstrap root on an
 *       ephemeral port of this process) and sets its bytes under
 *       {@code /jccl/<TORCHELASTIC_RUN_ID>/attempt_<TORCHELASTIC_RESTART_COUNT>/unique_id/<n>}, n counting the ids
 *       this process shared before; the others wait for that key (a line every {@code JCCL_WAIT_LOG_MS}, 10 s)
 *       until the deadline, then get it. A restart ({@code --max-restarts}) counts up the attempt, so the
 *       communicator re-forms with a fresh id. The store, like everything torch keeps there, is readable by whoever
 *       reaches its port.</li>
 *   <li>otherwise (the c10d backend of older agents, {@code --standalone} included): the agent picked
 *       {@code MASTER_PORT} free for rank 0 to serve on, as env:// would serve its store there; rank 0 starts the
 *       bootstrap root on it and every rank derives the same id from the address, the run and the attempt (and
 *       {@code JCCL_COMM_SECRET} when set), as {@link AddressRendezvous} does from the address alone.</li>
 * </ul>
 *
 * <p>Owned by: the calling thread (stateless but for the process-wide count of shared ids). Mirrors: torch's
 * {@code env://} rendezvous (torch/distributed/rendezvous.py, _create_c10d_store) under torchrun.
 */
public final class TorchRendezvous implements Rendezvous {
    static final Duration PROBE = Duration.ofSeconds(5);
    private static final AtomicInteger SHARED = new AtomicInteger();

    private final Supplier<Map<String, String>> environment;
    private final AtomicInteger shared;
    private final Supplier<Duration> progressEvery;

    public TorchRendezvous() {
        this(System::getenv, SHARED, () -> Duration.ofMillis(Params.WAIT_LOG_MS.get()));
    }

    /**
     * A rendezvous reading {@code environment}, counting its shared ids in {@code shared}, saying it still waits
     * every {@code progressEvery} (for tests).
     */
    TorchRendezvous(Supplier<Map<String, String>> environment, AtomicInteger shared,
            Supplier<Duration> progressEvery) {
        this.environment = environment;
        this.shared = shared;
        this.progressEvery = progressEvery;
    }

    @Override
    public String name() {
        return "torchrun";
    }

    /** Above the MASTER_ADDR fallback (10), below an address the user set (100). */
    @Override
    public int priority() {
        return 60;
    }

    @Override
    public boolean detect(Map<String, String> env) {
        boolean elastic = env.containsKey("TORCHELASTIC_RUN_ID") || env.containsKey("TORCHELASTIC_RESTART_COUNT")
                || env.containsKey("TORCHELASTIC_MAX_RESTARTS");
        return elastic && env.containsKey("MASTER_ADDR") && env.containsKey("MASTER_PORT") && env.containsKey("RANK")
                && env.containsKey("WORLD_SIZE");
    }

    @Override
    public Placement placement(Map<String, String> env) {
        Placement p = EnvPlacement.require(env, name());
        return new Placement(p.rank(), p.size(), p.localRank(), p.localSize(), name());
    }

    @Override
    public UniqueId shareId(Placement self, Supplier<UniqueId> newId, Duration timeout) {
        Map<String, String> env = environment.get();
        String host = env.get("MASTER_ADDR");
        String port = env.get("MASTER_PORT");
        if (host == null || port == null) {
            throw new JcclException(Result.INVALID_ARGUMENT, "torchrun rendezvous: rank " + self.rank()
                    + " has no MASTER_ADDR and MASTER_PORT (is this process started by torchrun?)");
        }
        String runId = env.getOrDefault("TORCHELASTIC_RUN_ID", "none");
        String attempt = env.getOrDefault("TORCHELASTIC_RESTART_COUNT", "0");
        String hostPort = host + ":" + port;
        if (!"True".equals(env.get("TORCHELASTIC_USE_AGENT_STORE"))) {
            UniqueId id = AddressRendezvous.serveOrJoin(hostPort, AddressRendezvous.parseHostPort(hostPort),
                    "|torchrun|" + runId + "|" + attempt, self.rank());
            Log.info(Subsys.BOOTSTRAP, self.rank(), "torchrun: no agent store (TORCHELASTIC_USE_AGENT_STORE=%s): "
                    + "rank 0 serves the bootstrap root on MASTER_PORT %s, attempt %s of run %s",
                    env.getOrDefault("TORCHELASTIC_USE_AGENT_STORE", "unset"), port, attempt, runId);
            return id;
        }
        String key = "/jccl/" + runId + "/attempt_" + attempt + "/unique_id/" + shared.getAndIncrement();
        return viaStore(self, AddressRendezvous.parseHostPort(hostPort), key, newId, timeout);
    }

    private UniqueId viaStore(Placement self, InetSocketAddress store, String key, Supplier<UniqueId> newId,
            Duration timeout) {
        int rank = self.rank();
        String where = store.getHostString() + ":" + store.getPort();
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        String doing = rank == 0 ? "publishing the communicator id as key '" + key + "'"
                : "waiting for key '" + key + "' (the communicator id rank 0 publishes)";
        try (TcpStoreClient client = TcpStoreClient.connect(store, deadline, PROBE)) {
            String label = client.dialect().label;
            if (rank == 0) {
                UniqueId id = newId.get();
                client.set(key, id.toBytes());
                Log.info(Subsys.BOOTSTRAP, rank, "torchrun: published the communicator id as key %s in the agent's "
                        + "store at %s (%s)", key, where, label);
                return id;
            }
            boolean set = client.await(key, deadline, progressEvery.get(), waitedMs -> Log.warn(rank, "torchrun: "
                    + "rank %d still waiting after %s for key %s in the agent's store at %s (%s): rank 0 publishes "
                    + "the communicator id there", rank, seconds(waitedMs), key, where, label));
            if (!set) {
                throw new JcclException(Result.TIMEOUT, String.format(Locale.ROOT, "torchrun rendezvous: rank %d "
                        + "waited %s for key '%s' in the agent's store at %s (%s), in vain: rank 0 did not publish "
                        + "the communicator id (did it start, and reach JCCL? see its log; JCCL_TIMEOUT_MS sets the "
                        + "wait)", rank, seconds(waited(start)), key, where, label));
            }
            byte[] bytes = client.get(key);
            if (bytes.length != UniqueId.BYTES) {
                throw new JcclException(Result.INTERNAL_ERROR, "torchrun rendezvous: rank " + rank + " got "
                        + bytes.length + " bytes for key '" + key + "' from the store at " + where + ", not a "
                        + "communicator id of " + UniqueId.BYTES);
            }
            Log.info(Subsys.BOOTSTRAP, rank, "torchrun: got the communicator id from key %s in the agent's store at "
                    + "%s (%s) after %s", key, where, label, seconds(waited(start)));
            return UniqueId.fromBytes(bytes);
        } catch (IOException e) {
            boolean late = System.nanoTime() - deadline >= 0;
            throw new JcclException(late ? Result.TIMEOUT : Result.SYSTEM_ERROR, String.format(Locale.ROOT,
                    "torchrun rendezvous: rank %d %s in the agent's store at %s failed after %s: %s", rank, doing,
                    where, seconds(waited(start)), e.getMessage()), e);
        }
    }

    private static long waited(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
    }

    private static String seconds(long ms) {
        return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
}
