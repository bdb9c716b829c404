package io.jccl.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The ids of a scalable init (NCCL's ncclCommInitRankScalable), checked before any rank starts: at least one, at most
 * one per rank, none null, none twice. As in NCCL, setting {@code NCCL_COMM_ID} (or JCCL's {@code JCCL_COMM_ID})
 * makes the init use one root, the first id's: a fixed root address cannot serve several roots. Whether the ranks
 * were given the same list is checked by the roots (each hello carries a digest of the list).
 *
 * <p>Stateless; the initialising thread. Mirrors: ncclCommInitRankScalable's argument checks and its nId = 1 under
 * NCCL_COMM_ID (init.cc).
 */
final class ScalableIds {
    private ScalableIds() {
    }

    /** The roots rank {@code rank} of {@code nRanks} joins through. */
    static List<UniqueId> roots(List<UniqueId> ids, int nRanks, int rank) {
        if (ids == null || ids.isEmpty()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "a scalable init needs at least one UniqueId");
        }
        Set<UniqueId> seen = new HashSet<>();
        for (UniqueId id : ids) {
            if (id == null) {
                throw new JcclException(Result.INVALID_ARGUMENT, "the list of UniqueIds holds a null");
            }
            if (!seen.add(id)) {
                throw new JcclException(Result.INVALID_ARGUMENT, "the list of UniqueIds holds " + id + " twice: "
                        + "each bootstrap root serves one group of ranks");
            }
        }
        if (nRanks >= 1 && ids.size() > nRanks) {
            throw new JcclException(Result.INVALID_ARGUMENT, ids.size() + " UniqueIds for " + nRanks
                    + " ranks: give at most one per rank");
        }
        if (ids.size() > 1 && (Params.COMM_ID.isSet() || Params.JCCL_COMM_ID.isSet())) {
            Log.info(Subsys.INIT, rank, "%s is set: one bootstrap root (the first of %d UniqueIds), as NCCL does",
                    Params.JCCL_COMM_ID.isSet() ? Params.JCCL_COMM_ID.name() : Params.COMM_ID.name(), ids.size());
            return List.of(ids.getFirst());
        }
        return List.copyOf(ids);
    }
}
