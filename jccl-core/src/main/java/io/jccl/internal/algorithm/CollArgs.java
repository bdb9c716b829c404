package io.jccl.internal.algorithm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;

import java.lang.foreign.MemorySegment;

/**
 * The arguments of one collective call after validation (NCCL's {@code ncclInfo}). {@code count} is per-rank: the
 * whole buffer for allReduce/broadcast/reduce, one block for allGather/reduceScatter/allToAll/gather/scatter.
 * {@code choice} is the tuning layer's decision for the call (a packed {@code HostSelector} answer), made once when
 * the call began. Owned by: immutable.
 */
public record CollArgs(Collective coll, long seq, MemorySegment send, MemorySegment recv, long count, DataType type,
                       RedOp op, int root, int peer, long choice) {

    public long bytes() {
        return count * type.sizeBytes();
    }

    /** E.g. {@code AllReduce #7 (count 1024 float sum)}. */
    public String describe() {
        return describe(coll, seq, count, type, op, root, peer);
    }

    /** The same description from loose arguments (the allocation-free path keeps no record). */
    public static String describe(Collective coll, long seq, long count, DataType type, RedOp op, int root, int peer) {
        StringBuilder b = new StringBuilder(coll.ncclName()).append(" #").append(seq).append(" (count ").append(count)
                .append(' ').append(type.ncclName());
        if (coll.reduces()) {
            b.append(' ').append(op);
        }
        if (coll.rooted()) {
            b.append(" root ").append(root);
        }
        if (coll == Collective.SEND || coll == Collective.RECV) {
            b.append(coll == Collective.SEND ? " to " : " from ").append(peer);
        }
        return b.append(')').toString();
    }
}
