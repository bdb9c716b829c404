package io.jccl.internal.comm;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;

import java.util.List;

/** Creates communicators (NCCL's ncclCommInitRank path). Skeleton: filled in by the foundation work. */
public final class CommFactory {
    private CommFactory() {
    }

    public static Communicator init(UniqueId id, int nRanks, int rank, Config config) {
        throw new JcclException(Result.INTERNAL_ERROR, "not built yet");
    }

    public static Communicator fromEnvironment(Config config) {
        throw new JcclException(Result.INTERNAL_ERROR, "not built yet");
    }

    public static List<Communicator> initAll(int nRanks, Config config) {
        throw new JcclException(Result.INTERNAL_ERROR, "not built yet");
    }
}
