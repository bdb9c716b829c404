package io.jccl;

import java.lang.foreign.MemorySegment;

/**
 * Convenience overloads of the common collectives on Java primitive arrays. The element count is the array's
 * length (for allGather the send array's, for reduceScatter the receive array's) and the {@link DataType} follows
 * from the array type: {@code float[]} FLOAT32, {@code double[]} FLOAT64, {@code int[]} INT32, {@code long[]} INT64,
 * {@code byte[]} INT8, {@code short[]} BFLOAT16 is not inferred (pass segments for 16-bit types).
 */
public interface ArrayCollectives {

    void allReduce(MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op);

    void broadcast(MemorySegment send, MemorySegment recv, long count, DataType type, int root);

    void reduce(MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op, int root);

    void allGather(MemorySegment send, MemorySegment recv, long sendCount, DataType type);

    void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, RedOp op);

    void send(MemorySegment buf, long count, DataType type, int peer);

    void recv(MemorySegment buf, long count, DataType type, int peer);

    /** In-place allReduce of a whole array. */
    default void allReduce(float[] data, RedOp op) {
        MemorySegment s = MemorySegment.ofArray(data);
        allReduce(s, s, data.length, DataType.FLOAT32, op);
    }

    default void allReduce(double[] data, RedOp op) {
        MemorySegment s = MemorySegment.ofArray(data);
        allReduce(s, s, data.length, DataType.FLOAT64, op);
    }

    default void allReduce(int[] data, RedOp op) {
        MemorySegment s = MemorySegment.ofArray(data);
        allReduce(s, s, data.length, DataType.INT32, op);
    }

    default void allReduce(long[] data, RedOp op) {
        MemorySegment s = MemorySegment.ofArray(data);
        allReduce(s, s, data.length, DataType.INT64, op);
    }

    /** Out-of-place allReduce; both arrays have the same length. */
    default void allReduce(float[] send, float[] recv, RedOp op) {
        sameLength(send.length, recv.length);
        allReduce(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.FLOAT32, op);
    }

    default void allReduce(double[] send, double[] recv, RedOp op) {
        sameLength(send.length, recv.length);
        allReduce(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.FLOAT64, op);
    }

    default void allReduce(int[] send, int[] recv, RedOp op) {
        sameLength(send.length, recv.length);
        allReduce(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.INT32, op);
    }

    default void allReduce(long[] send, long[] recv, RedOp op) {
        sameLength(send.length, recv.length);
        allReduce(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.INT64, op);
    }

    /** In-place broadcast of a whole array from {@code root}. */
    default void broadcast(float[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, data.length, DataType.FLOAT32, root);
    }

    default void broadcast(double[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, data.length, DataType.FLOAT64, root);
    }

    default void broadcast(int[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, data.length, DataType.INT32, root);
    }

    default void broadcast(long[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, data.length, DataType.INT64, root);
    }

    default void broadcast(byte[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, data.length, DataType.INT8, root);
    }

    /** In-place reduce: {@code root}'s array receives the reduction. */
    default void reduce(float[] data, RedOp op, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        reduce(s, s, data.length, DataType.FLOAT32, op, root);
    }

    default void reduce(double[] data, RedOp op, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        reduce(s, s, data.length, DataType.FLOAT64, op, root);
    }

    /** {@code recv.length} must be {@code size() * send.length}. */
    default void allGather(float[] send, float[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.FLOAT32);
    }

    default void allGather(double[] send, double[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.FLOAT64);
    }

    default void allGather(int[] send, int[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.INT32);
    }

    default void allGather(long[] send, long[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.INT64);
    }

    /** {@code send.length} must be {@code size() * recv.length}. */
    default void reduceScatter(float[] send, float[] recv, RedOp op) {
        reduceScatter(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), recv.length, DataType.FLOAT32, op);
    }

    default void reduceScatter(double[] send, double[] recv, RedOp op) {
        reduceScatter(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), recv.length, DataType.FLOAT64, op);
    }

    default void send(float[] data, int peer) {
        send(MemorySegment.ofArray(data), data.length, DataType.FLOAT32, peer);
    }

    default void recv(float[] data, int peer) {
        recv(MemorySegment.ofArray(data), data.length, DataType.FLOAT32, peer);
    }

    default void send(byte[] data, int peer) {
        send(MemorySegment.ofArray(data), data.length, DataType.INT8, peer);
    }

    default void recv(byte[] data, int peer) {
        recv(MemorySegment.ofArray(data), data.length, DataType.INT8, peer);
    }

    private static void sameLength(int a, int b) {
        if (a != b) {
            throw new JcclException(Result.INVALID_ARGUMENT, "send and receive arrays differ in length: " + a + " vs " + b);
        }
    }
}
