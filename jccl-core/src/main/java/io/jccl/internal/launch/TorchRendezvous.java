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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Processes started by torchrun. Where torchrun's agent shares its own TCPStore with the workers
 * ({@code TORCHELASTIC_USE_AGENT_STORE=True}: static rendezvous, and torch 2.x generally), MASTER_PORT is that store's
 * and no worker may bind it: rank 0 makes the id (a bootstrap root on a port of its own) and sets it in the store
 * under {@code jccl/<run id>/<restart count>/id}, and the others poll for it (so a restart after
 * {@code --max-restarts} forms a new communicator with a fresh id). Otherwise MASTER_PORT is free for the workers,
 * as for {@code env://}, and rank 0 starts the bootstrap root on it ({@link AddressRendezvous}).
 *
 * <p>Owned by: the calling thread (stateless). Mirrors: torch.distributed's env:// rendezvous under torchelastic.
 */
public final class TorchRendezvous implements Rendezvous {
    private static final long POLL_MS = 50;

    @Override
    public String name() {
        return "torchrun";
    }

    @Override
    public int priority() {
        return 60;
    }

    @Override
    public boolean detect(Map<String, String> env) {
        return (env.containsKey("TORCHELASTIC_RUN_ID") || env.containsKey("TORCHELASTIC_RESTART_COUNT"))
                && env.containsKey("MASTER_ADDR") && env.containsKey("MASTER_PORT") && env.containsKey("RANK")
                && env.containsKey("WORLD_SIZE");
    }

    @Override
    public Placement placement(Map<String, String> env) {
        Placement p = EnvPlacement.require(env, name());
        return new Placement(p.rank(), p.size(), p.localRank(), p.localSize(), name());
    }

    @Override
    public UniqueId shareId(Placement self, Supplier<UniqueId> newId, Duration timeout) {
        Map<String, String> env = System.getenv();
        if (!"true".equalsIgnoreCase(env.getOrDefault("TORCHELASTIC_USE_AGENT_STORE", ""))) {
            return new AddressRendezvous().shareId(self, newId, timeout);
        }
        InetSocketAddress at = AddressRendezvous.parseHostPort(env.get("MASTER_ADDR") + ":" + env.get("MASTER_PORT"));
        String key = "jccl/" + env.getOrDefault("TORCHELASTIC_RUN_ID", "none") + "/"
                + env.getOrDefault("TORCHELASTIC_RESTART_COUNT", "0") + "/id";
        return shareThrough(at, key, self, newId, timeout);
    }

    /** The exchange through the store at {@code at}, under {@code key}. */
    static UniqueId shareThrough(InetSocketAddress at, String key, Placement self, Supplier<UniqueId> newId,
                                 Duration timeout) {
        String who = "rank " + self.rank() + " of " + self.size();
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        try (TorchStore store = TorchStore.connect(at, deadline, who)) {
            if (self.rank() == 0) {
                UniqueId id = newId.get();
                store.set(key, id.toBytes());
                Log.info(Subsys.BOOTSTRAP, 0, "torchrun: set the communicator id in the TCPStore at %s (%s dialect) "
                        + "under %s", at, store.dialect(), key);
                return id;
            }
            long everyNs = TimeUnit.MILLISECONDS.toNanos(Params.WAIT_LOG_MS.get());
            long nextLog = start + everyNs;
            while (!store.check(key)) {
                long now = System.nanoTime();
                if (now >= deadline) {
                    throw new JcclException(Result.TIMEOUT, who + ": rank 0 did not set " + key + " in torchrun's "
                            + "TCPStore at " + at + " within " + timeout.toMillis() + " ms (" + Params.TIMEOUT_MS.name()
                            + "); did rank 0 start, and call fromEnvironment()?");
                }
                if (now >= nextLog) {
                    nextLog += everyNs;
                    Log.warn(self.rank(), "%s: waiting %d s for rank 0 to set %s in torchrun's TCPStore at %s",
                            who, TimeUnit.NANOSECONDS.toSeconds(now - start), key, at);
                }
                TorchStore.sleep(POLL_MS);
            }
            return UniqueId.fromBytes(store.get(key));
        } catch (IOException e) {
            throw new JcclException(Result.REMOTE_ERROR, who + ": torchrun's TCPStore at " + at + " failed while "
                    + "sharing " + key + ": " + e.getMessage(), e);
        }
    }
}
