package io.jccl;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Overloads of the collectives on {@link ByteBuffer}s (heap or direct). Data is read and written from each buffer's
 * position to its limit; positions and limits are not changed. Counts are in elements of the given type.
 *
 * <p>Elements are read and written in the platform's byte order, so a buffer holding elements wider than one byte
 * must have {@code order(ByteOrder.nativeOrder())} (a new {@code ByteBuffer} is big-endian): any other order is
 * refused with {@link Result#INVALID_ARGUMENT}, as are read-only receive buffers and buffers smaller than the count.
 * Set the order before filling the buffer: it decides how {@code putFloat} and friends lay out the bytes. A null
 * buffer is allowed where this rank does not use it (a non-root's send buffer of broadcast). See
 * {@code docs/buffers.md} for everything JCCL checks about buffers.
 */
public interface BufferCollectives {

    /**
     * This rank, implemented by {@link Communicator} (named in the error messages of the overloads below).
     *
     * @return this rank
     */
    int rank();

    /**
     * Segment form of allReduce, implemented by {@link Communicator}.
     *
     * @param send the data this rank contributes
     * @param recv where the reduced result is written (may be {@code send})
     * @param count elements per rank
     * @param type element type
     * @param op the reduction
     */
    void allReduce(MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op);

    /**
     * Segment form of broadcast, implemented by {@link Communicator}.
     *
     * @param send the root's data (read on the root only)
     * @param recv where every rank receives it
     * @param count elements
     * @param type element type
     * @param root the rank whose data is sent
     */
    void broadcast(MemorySegment send, MemorySegment recv, long count, DataType type, int root);

    /**
     * Segment form of reduce, implemented by {@link Communicator}.
     *
     * @param send the data this rank contributes
     * @param recv where the root receives the result
     * @param count elements per rank
     * @param type element type
     * @param op the reduction
     * @param root the rank that receives the result
     */
    void reduce(MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op, int root);

    /**
     * Segment form of allGather, implemented by {@link Communicator}.
     *
     * @param send this rank's block
     * @param recv every rank's block, in rank order
     * @param sendCount elements per block
     * @param type element type
     */
    void allGather(MemorySegment send, MemorySegment recv, long sendCount, DataType type);

    /**
     * Segment form of reduceScatter, implemented by {@link Communicator}.
     *
     * @param send {@code size()} blocks
     * @param recv this rank's reduced block
     * @param recvCount elements per block
     * @param type element type
     * @param op the reduction
     */
    void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, RedOp op);

    /**
     * Segment form of allToAll, implemented by {@link Communicator}.
     *
     * @param send {@code size()} blocks, block p for rank p
     * @param recv {@code size()} blocks, block p from rank p
     * @param count elements per block
     * @param type element type
     */
    void allToAll(MemorySegment send, MemorySegment recv, long count, DataType type);

    /**
     * Segment form of send, implemented by {@link Communicator}.
     *
     * @param buf the data to send
     * @param count elements
     * @param type element type
     * @param peer the receiving rank
     */
    void send(MemorySegment buf, long count, DataType type, int peer);

    /**
     * Segment form of recv, implemented by {@link Communicator}.
     *
     * @param buf where the data is written
     * @param count elements
     * @param type element type
     * @param peer the sending rank
     */
    void recv(MemorySegment buf, long count, DataType type, int peer);

    /**
     * AllReduce on {@link ByteBuffer}s (from position to limit).
     *
     * @param send the bytes this rank contributes
     * @param recv where the reduced result is written (may be {@code send})
     * @param count elements per rank
     * @param type element type
     * @param op the reduction
     */
    default void allReduce(ByteBuffer send, ByteBuffer recv, long count, DataType type, RedOp op) {
        allReduce(BufferViews.of(send, type, "send", Collective.ALL_REDUCE, rank()),
                BufferViews.of(recv, type, "receive", Collective.ALL_REDUCE, rank()), count, type, op);
    }

    /**
     * Broadcast on {@link ByteBuffer}s (from position to limit).
     *
     * @param send the root's data (read on the root only)
     * @param recv where every rank receives it
     * @param count elements
     * @param type element type
     * @param root the rank whose data is sent
     */
    default void broadcast(ByteBuffer send, ByteBuffer recv, long count, DataType type, int root) {
        broadcast(BufferViews.of(send, type, "send", Collective.BROADCAST, rank()),
                BufferViews.of(recv, type, "receive", Collective.BROADCAST, rank()), count, type, root);
    }

    /**
     * Reduce on {@link ByteBuffer}s (from position to limit).
     *
     * @param send the bytes this rank contributes
     * @param recv where the root receives the result
     * @param count elements per rank
     * @param type element type
     * @param op the reduction
     * @param root the rank that receives the result
     */
    default void reduce(ByteBuffer send, ByteBuffer recv, long count, DataType type, RedOp op, int root) {
        reduce(BufferViews.of(send, type, "send", Collective.REDUCE, rank()),
                BufferViews.of(recv, type, "receive", Collective.REDUCE, rank()), count, type, op, root);
    }

    /**
     * AllGather on {@link ByteBuffer}s (from position to limit).
     *
     * @param send this rank's block
     * @param recv every rank's block, in rank order
     * @param sendCount elements per block
     * @param type element type
     */
    default void allGather(ByteBuffer send, ByteBuffer recv, long sendCount, DataType type) {
        allGather(BufferViews.of(send, type, "send", Collective.ALL_GATHER, rank()),
                BufferViews.of(recv, type, "receive", Collective.ALL_GATHER, rank()), sendCount, type);
    }

    /**
     * ReduceScatter on {@link ByteBuffer}s (from position to limit).
     *
     * @param send {@code size()} blocks
     * @param recv this rank's reduced block
     * @param recvCount elements per block
     * @param type element type
     * @param op the reduction
     */
    default void reduceScatter(ByteBuffer send, ByteBuffer recv, long recvCount, DataType type, RedOp op) {
        reduceScatter(BufferViews.of(send, type, "send", Collective.REDUCE_SCATTER, rank()),
                BufferViews.of(recv, type, "receive", Collective.REDUCE_SCATTER, rank()), recvCount, type, op);
    }

    /**
     * AllToAll on {@link ByteBuffer}s (from position to limit).
     *
     * @param send {@code size()} blocks, block p for rank p
     * @param recv {@code size()} blocks, block p from rank p
     * @param count elements per block
     * @param type element type
     */
    default void allToAll(ByteBuffer send, ByteBuffer recv, long count, DataType type) {
        allToAll(BufferViews.of(send, type, "send", Collective.ALL_TO_ALL, rank()),
                BufferViews.of(recv, type, "receive", Collective.ALL_TO_ALL, rank()), count, type);
    }

    /**
     * Send on {@link ByteBuffer}s (from position to limit).
     *
     * @param buf the bytes to send
     * @param count elements
     * @param type element type
     * @param peer the receiving rank
     */
    default void send(ByteBuffer buf, long count, DataType type, int peer) {
        send(BufferViews.of(buf, type, "send", Collective.SEND, rank()), count, type, peer);
    }

    /**
     * Recv on {@link ByteBuffer}s (from position to limit).
     *
     * @param buf where the bytes is written
     * @param count elements
     * @param type element type
     * @param peer the sending rank
     */
    default void recv(ByteBuffer buf, long count, DataType type, int peer) {
        recv(BufferViews.of(buf, type, "receive", Collective.RECV, rank()), count, type, peer);
    }
}
