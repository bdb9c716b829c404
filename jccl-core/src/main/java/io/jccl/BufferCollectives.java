package io.jccl;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Overloads of the collectives on {@link ByteBuffer}s (heap or direct). Data is read and written from each buffer's
 * position to its limit; positions and limits are not changed. Counts are in elements of the given type.
 */
public interface BufferCollectives {

    void allReduce(MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op);

    void broadcast(MemorySegment send, MemorySegment recv, long count, DataType type, int root);

    void reduce(MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op, int root);

    void allGather(MemorySegment send, MemorySegment recv, long sendCount, DataType type);

    void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, RedOp op);

    void allToAll(MemorySegment send, MemorySegment recv, long count, DataType type);

    void send(MemorySegment buf, long count, DataType type, int peer);

    void recv(MemorySegment buf, long count, DataType type, int peer);

    default void allReduce(ByteBuffer send, ByteBuffer recv, long count, DataType type, RedOp op) {
        allReduce(MemorySegment.ofBuffer(send), MemorySegment.ofBuffer(recv), count, type, op);
    }

    default void broadcast(ByteBuffer send, ByteBuffer recv, long count, DataType type, int root) {
        broadcast(MemorySegment.ofBuffer(send), MemorySegment.ofBuffer(recv), count, type, root);
    }

    default void reduce(ByteBuffer send, ByteBuffer recv, long count, DataType type, RedOp op, int root) {
        reduce(MemorySegment.ofBuffer(send), MemorySegment.ofBuffer(recv), count, type, op, root);
    }

    default void allGather(ByteBuffer send, ByteBuffer recv, long sendCount, DataType type) {
        allGather(MemorySegment.ofBuffer(send), MemorySegment.ofBuffer(recv), sendCount, type);
    }

    default void reduceScatter(ByteBuffer send, ByteBuffer recv, long recvCount, DataType type, RedOp op) {
        reduceScatter(MemorySegment.ofBuffer(send), MemorySegment.ofBuffer(recv), recvCount, type, op);
    }

    default void allToAll(ByteBuffer send, ByteBuffer recv, long count, DataType type) {
        allToAll(MemorySegment.ofBuffer(send), MemorySegment.ofBuffer(recv), count, type);
    }

    default void send(ByteBuffer buf, long count, DataType type, int peer) {
        send(MemorySegment.ofBuffer(buf), count, type, peer);
    }

    default void recv(ByteBuffer buf, long count, DataType type, int peer) {
        recv(MemorySegment.ofBuffer(buf), count, type, peer);
    }
}
