package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;

/** The bootstrap root thread (NCCL's bootstrapRoot). Skeleton. */
public final class BootstrapRoot {
    private BootstrapRoot() {
    }

    public static UniqueId startNew() {
        throw new JcclException(Result.INTERNAL_ERROR, "not built yet");
    }
}
