package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.RedOp;

/**
 * The tuning layer's one question, asked once per call by the host and the GPU planners alike: what runs for this
 * call. Implementations are pure functions of values every rank shares (collective, size, op, buffer registration,
 * communicator shape), so every rank selects the same. Owned by: the communicator's calling thread.
 * Mirrors: ncclGetAlgoInfo (enqueue.cc), which fills the algorithm, protocol and channels of a task.
 */
public interface CallSelector {
    /**
     * The selection for a call of {@code nBytes} per rank.
     *
     * @param registered whether the call's buffers are registered with the communicator (host: both come from
     *                   {@code allocate}); planners without registered algorithms ignore it
     */
    Selection select(Collective collective, long nBytes, RedOp.Kind op, boolean registered);
}
