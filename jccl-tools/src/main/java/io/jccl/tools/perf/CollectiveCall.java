package io.jccl.tools.perf;

import io.jccl.DataType;
import io.jccl.RedOp;

/**
 * One fully specified call a perf rank issues: which collective, which byte ranges of the send and receive buffers,
 * how many elements of which type, the reduction and the root. In place, {@code send} and {@code recv} are the
 * same buffer at the offsets {@link BufferLayout} gives. A value computed once per (size, placement), before the
 * timed loop; mirrors the arguments of nccl-tests' {@code runColl}.
 *
 * @param sendOffsetBytes start of the send data in {@code send}
 * @param sendBytes       length of the send data
 * @param recvOffsetBytes start of the result in {@code recv}
 * @param recvBytes       length of the result
 * @param count           the element count passed to the collective
 * @param op              this rank's reduction (its own scalar for mulsum); ignored by data-moving collectives
 * @param root            the root rank, or -1 for collectives without one
 */
public record CollectiveCall(PerfCollective coll, PerfBuffer send, long sendOffsetBytes, long sendBytes,
                             PerfBuffer recv, long recvOffsetBytes, long recvBytes, long count, DataType type,
                             RedOp op, int root) {

    /** Out-of-place or in-place: which buffers and offsets a call of {@code layout} uses on {@code rank}. */
    public static CollectiveCall of(PerfCollective coll, BufferLayout layout, boolean inPlace, PerfBuffer sendBuf,
                                    PerfBuffer recvBuf, DataType type, RedOp op, int root, int rank) {
        long elt = layout.eltSize();
        if (!inPlace) {
            return new CollectiveCall(coll, sendBuf, 0, layout.sendBytes(), recvBuf, 0, layout.recvBytes(),
                    layout.paramCount(), type, op, root);
        }
        return new CollectiveCall(coll, recvBuf, layout.sendInplaceOffset() * rank * elt, layout.sendBytes(),
                recvBuf, layout.recvInplaceOffset() * rank * elt, layout.recvBytes(), layout.paramCount(), type, op,
                root);
    }
}
