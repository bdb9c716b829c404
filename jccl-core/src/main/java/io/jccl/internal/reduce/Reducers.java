package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;

/** Picks the {@link Reducer} implementation for a type and op. Placeholder: replaced by the full kernel set. */
final class Reducers {
    private Reducers() {
    }

    static Reducer of(DataType type, RedOp op, int nRanks) {
        throw new JcclException(Result.INTERNAL_ERROR, "reduction kernels for " + type + "/" + op + " are not built yet");
    }
}
