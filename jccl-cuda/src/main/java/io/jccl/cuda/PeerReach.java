package io.jccl.cuda;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.cuda.internal.comm.Clique;
import io.jccl.cuda.internal.enqueue.Enqueuer;

/**
 * Whether the other GPUs of an {@code initAll} clique may touch an allReduce's buffers: the pull kernels (one-shot,
 * two-shot) read and write every rank's buffers from every GPU. Peer access reaches the driver's legacy memory
 * (cuMemAlloc) and JCCL's own; wrapped memory of a pool or of cuMemCreate must have been granted to them
 * ({@link DeviceBuffer#requireReachableFrom}). A refusal stops every rank, as a refused call does, instead of a GPU
 * fault. Costs nothing for buffers that peer access reaches.
 *
 * <p>Thread: the communicator's issuing thread. Mirrors the checks NCCL's user-buffer registration makes before
 * its kernels address peers' buffers.
 */
final class PeerReach {
    private PeerReach() {
    }

    /** Whether the allReduce reads its peers' buffers (the pull kernels). */
    private static boolean pulls(AllReduceAlgorithm a) {
        return a == AllReduceAlgorithm.ONE_SHOT || a == AllReduceAlgorithm.TWO_SHOT;
    }

    /** Checks {@code send} and {@code recv} of an allReduce of {@code count} elements; {@code clique} null: none. */
    static void require(Clique clique, Enqueuer enqueuer, String where, DeviceBuffer send, DeviceBuffer recv,
                        long count, DataType type, RedOp op) {
        if (clique == null || !(send.grantedAccessOnly() || recv.grantedAccessOnly())
                || !pulls(enqueuer.planner().chooseAllReduce(count * type.sizeBytes(), op.kind()))) {
            return;
        }
        try {
            send.requireReachableFrom(clique.devices(), where, "send");
            recv.requireReachableFrom(clique.devices(), where, "receive");
        } catch (JcclException e) {
            clique.control().fail(e);
            throw e;
        }
    }
}
