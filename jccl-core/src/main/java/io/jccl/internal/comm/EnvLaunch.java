package io.jccl.internal.comm;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.bootstrap.BootstrapRoot;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.launch.Rendezvouses;
import io.jccl.internal.param.Params;
import io.jccl.launch.Placement;
import io.jccl.launch.Rendezvous;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Builds a communicator from what a launcher put in the environment: the {@link Rendezvous} of the launcher says
 * where this process sits and gives every process the same id (docs/launchers.md).
 *
 * <p>Owned by: the calling thread. Mirrors: NCCL_COMM_ID handling in bootstrapNetInit / ncclGetUniqueId.
 */
final class EnvLaunch {
    private EnvLaunch() {
    }

    static Communicator init(Config config) {
        return initRanks(config, 1).getFirst();
    }

    /**
     * This process's {@code perProcess} ranks of a communicator of {@code WORLD_SIZE × perProcess} ranks: process p
     * holds ranks {@code p·perProcess} to {@code p·perProcess + perProcess - 1}.
     */
    static List<Communicator> initRanks(Config config, int perProcess) {
        if (perProcess < 1) {
            throw new JcclException(Result.INVALID_ARGUMENT, "ranks per process must be at least 1, got " + perProcess);
        }
        Map<String, String> env = System.getenv();
        Rendezvous rv = Rendezvouses.detect(env);
        Placement p = rv.placement(env);
        UniqueId id = rv.shareId(p, BootstrapRoot::startNew, Duration.ofMillis(Params.TIMEOUT_MS.get()));
        int nRanks = Math.multiplyExact(p.size(), perProcess);
        int[] ranks = new int[perProcess];
        for (int i = 0; i < perProcess; i++) {
            ranks[i] = p.rank() * perProcess + i;
        }
        String root = id.rootAddress().getHostString() + ":" + id.rootAddress().getPort();
        if (perProcess == 1) {
            Log.info(Subsys.BOOTSTRAP, p.rank(), "environment launch (%s, rendezvous %s): rank %d of %d, root %s",
                    p.launcher(), rv.name(), p.rank(), p.size(), root);
        } else {
            Log.info(Subsys.BOOTSTRAP, ranks[0], "environment launch (%s, rendezvous %s): process %d of %d holds "
                    + "ranks %d-%d of %d, root %s", p.launcher(), rv.name(), p.rank(), p.size(), ranks[0],
                    ranks[perProcess - 1], nRanks, root);
        }
        return perProcess == 1 ? List.of(CommFactory.init(id, nRanks, ranks[0], config))
                : CommFactory.initRanks(id, nRanks, ranks, config);
    }
}
