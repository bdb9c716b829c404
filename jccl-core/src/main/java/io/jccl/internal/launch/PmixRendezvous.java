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
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Processes started by a PMIx server (Open MPI's mpirun, {@code srun --mpi=pmix}, prterun) share the id as MPI
 * libraries bootstrap: rank 0 makes it and puts its bytes (a hex string) under a JCCL key, every process commits and
 * fences over the namespace, the others get it from rank 0, and each finalizes PMIx right after (also when the
 * exchange fails). Rank and sizes come from the launcher's variables when they are there, else from PMIx
 * ({@code pmix.job.size}, {@code pmix.lrank}, {@code pmix.local.size}). Not detected when libpmix cannot be opened
 * ({@code JCCL_PMIX_LIBRARY} names it), so that Slurm's {@code SLURM_NODELIST} way applies.
 *
 * <p>Owned by: the calling thread; the count of exchanges (which keeps their keys apart) and the session a
 * placement leaves open for the exchange are shared, the latter under the class's lock.
 * Mirrors: Open MPI's modex over PMIx (ompi_mpi_init: OPAL_MODEX_SEND, PMIx_Fence, OPAL_MODEX_RECV).
 */
public final class PmixRendezvous implements Rendezvous {
    /** The key rank 0 puts the id under; each exchange of a process adds its sequence number. */
    static final String KEY = "jccl.unique_id";
    private static final AtomicInteger EXCHANGES = new AtomicInteger();
    /**
     * The session {@link #placement} opened when it had to ask PMIx, kept open for {@link #shareId}: a process that
     * finalized and initialised again in between could look departed to the server, failing the others' fence.
     * Finalized by the exchange, else at exit.
     */
    private static Pmix pending;
    private static boolean exitHook;

    @Override
    public String name() {
        return "pmix";
    }

    /** Below an address the user set (100) and torchrun's; above Slurm's node-list way (40). */
    @Override
    public int priority() {
        return 50;
    }

    @Override
    public boolean detect(Map<String, String> env) {
        if (!Pmix.inEnvironment(env)) {
            return false;
        }
        if (Pmix.library().isEmpty()) {
            Log.info(Subsys.BOOTSTRAP, -1, "PMIx variables are set but libpmix cannot be opened (%s): rendezvous "
                    + "pmix not used; %s names the library", Pmix.loadFailure(), Params.PMIX_LIBRARY.name());
            return false;
        }
        return true;
    }

    @Override
    public Placement placement(Map<String, String> env) {
        var fromEnv = EnvPlacement.find(env);
        if (fromEnv.isPresent()) {
            return fromEnv.get();
        }
        synchronized (PmixRendezvous.class) {
            Duration timeout = Duration.ofMillis(Params.TIMEOUT_MS.get());
            Pmix pmix = pending != null && !pending.isClosed() ? pending : Pmix.init(lib(), env, timeout);
            pending = pmix;
            if (!exitHook) {
                exitHook = true;
                Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("jccl-pmix-exit").unstarted(() -> {
                    Pmix left = take();
                    if (left != null) {
                        left.close();
                    }
                }));
            }
            pmix.restartClock(timeout);
            try {
                return askPmix(pmix);
            } catch (RuntimeException e) {
                Pmix failed = take();
                if (failed != null) {
                    failed.close();
                }
                throw e;
            }
        }
    }

    private static synchronized Pmix take() {
        Pmix p = pending;
        pending = null;
        return p != null && !p.isClosed() ? p : null;
    }

    private static Placement askPmix(Pmix pmix) {
        int size = Math.toIntExact(pmix.getNumber(Pmix.RANK_WILDCARD, "pmix.job.size"));
        int localRank = Math.toIntExact(pmix.getNumber(pmix.rank(), "pmix.lrank"));
        int localSize = Math.toIntExact(pmix.getNumber(Pmix.RANK_WILDCARD, "pmix.local.size"));
        Log.info(Subsys.BOOTSTRAP, pmix.rank(), "PMIx: namespace %s rank %d of %d, local rank %d of %d",
                pmix.namespace(), pmix.rank(), size, localRank, localSize);
        return new Placement(pmix.rank(), size, localRank, localSize, "PMIx");
    }

    @Override
    public UniqueId shareId(Placement self, Supplier<UniqueId> newId, Duration timeout) {
        return exchange(lib(), System.getenv(), self, newId, timeout);
    }

    /** {@link #shareId} through {@code lib}: init, rank 0's put, commit, fence, the others' get, finalize. */
    static UniqueId exchange(Pmix.Lib lib, Map<String, String> env, Placement self, Supplier<UniqueId> newId,
                             Duration timeout) {
        String key = KEY + "." + EXCHANGES.getAndIncrement();
        long t0 = System.nanoTime();
        Pmix open = take();
        if (open != null) {
            open.restartClock(timeout);
        }
        try (Pmix pmix = open != null ? open : Pmix.init(lib, env, timeout)) {
            if (pmix.rank() != self.rank()) {
                throw new JcclException(Result.INVALID_USAGE, "PMIx says this process is rank " + pmix.rank()
                        + " of namespace " + pmix.namespace() + " but " + self.launcher() + " says rank "
                        + self.rank() + ": set " + Params.RENDEZVOUS.name() + " to the launcher's rendezvous");
            }
            UniqueId id = null;
            if (self.rank() == 0) {
                id = newId.get();
                pmix.put(key, HexFormat.of().formatHex(id.toBytes()));
            }
            pmix.commit();
            pmix.fence();
            if (id == null) {
                id = decode(pmix.get(0, key), pmix);
            }
            Log.info(Subsys.BOOTSTRAP, self.rank(), "PMIx: id shared over namespace %s (%s) in %d ms",
                    pmix.namespace(), key, (System.nanoTime() - t0) / 1_000_000);
            return id;
        }
    }

    private static UniqueId decode(Object got, Pmix pmix) {
        try {
            byte[] bytes = switch (got) {
                case String hex -> HexFormat.of().parseHex(hex);
                case byte[] b -> b;
                default -> throw new IllegalArgumentException(String.valueOf(got));
            };
            return UniqueId.fromBytes(bytes);
        } catch (IllegalArgumentException | JcclException e) {
            throw new JcclException(Result.INTERNAL_ERROR, "PMIx: rank 0 of namespace " + pmix.namespace()
                    + " put no JCCL id under " + KEY + ": " + e.getMessage(), e);
        }
    }

    private static Pmix.Lib lib() {
        return Pmix.library().orElseThrow(() -> new JcclException(Result.SYSTEM_ERROR, "PMIx: cannot open libpmix ("
                + Pmix.loadFailure() + "); " + Params.PMIX_LIBRARY.name() + " names it"));
    }
}
