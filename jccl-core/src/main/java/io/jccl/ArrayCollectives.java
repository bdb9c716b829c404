package io.jccl;

import java.lang.foreign.MemorySegment;

/**
 * Convenience overloads of the common collectives on Java primitive arrays. The element count is the array's
 * length (for allGather the send array's, for reduceScatter the receive array's) and the {@link DataType} follows
 * from the array type: {@code float[]} FLOAT32, {@code double[]} FLOAT64, {@code int[]} INT32, {@code long[]} INT64,
 * {@code byte[]} INT8, {@code short[]} BFLOAT16 is not inferred (pass segments for 16-bit types).
 */
public interface ArrayCollectives {

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
     * In-place allReduce of a whole {@code float[]} (FLOAT32).
     *
     * @param data this rank's values, replaced by the reduction over all ranks
     * @param op   the reduction
     */
    default void allReduce(float[] data, RedOp op) {
        MemorySegment s = MemorySegment.ofArray(data);
        allReduce(s, s, data.length, DataType.FLOAT32, op);
    }

    /**
     * In-place allReduce of a whole {@code double[]} (FLOAT64).
     *
     * @param data this rank's values, replaced by the reduction over all ranks
     * @param op   the reduction
     */
    default void allReduce(double[] data, RedOp op) {
        MemorySegment s = MemorySegment.ofArray(data);
        allReduce(s, s, data.length, DataType.FLOAT64, op);
    }

    /**
     * In-place allReduce of a whole {@code int[]} (INT32).
     *
     * @param data this rank's values, replaced by the reduction over all ranks
     * @param op   the reduction
     */
    default void allReduce(int[] data, RedOp op) {
        MemorySegment s = MemorySegment.ofArray(data);
        allReduce(s, s, data.length, DataType.INT32, op);
    }

    /**
     * In-place allReduce of a whole {@code long[]} (INT64).
     *
     * @param data this rank's values, replaced by the reduction over all ranks
     * @param op   the reduction
     */
    default void allReduce(long[] data, RedOp op) {
        MemorySegment s = MemorySegment.ofArray(data);
        allReduce(s, s, data.length, DataType.INT64, op);
    }

    /**
     * Out-of-place allReduce of {@code float[]} arrays of the same length (FLOAT32).
     *
     * @param send this rank's values
     * @param recv receives the reduction over all ranks
     * @param op   the reduction
     */
    default void allReduce(float[] send, float[] recv, RedOp op) {
        sameLength(send.length, recv.length, rank());
        allReduce(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.FLOAT32, op);
    }

    /**
     * Out-of-place allReduce of {@code double[]} arrays of the same length (FLOAT64).
     *
     * @param send this rank's values
     * @param recv receives the reduction over all ranks
     * @param op   the reduction
     */
    default void allReduce(double[] send, double[] recv, RedOp op) {
        sameLength(send.length, recv.length, rank());
        allReduce(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.FLOAT64, op);
    }

    /**
     * Out-of-place allReduce of {@code int[]} arrays of the same length (INT32).
     *
     * @param send this rank's values
     * @param recv receives the reduction over all ranks
     * @param op   the reduction
     */
    default void allReduce(int[] send, int[] recv, RedOp op) {
        sameLength(send.length, recv.length, rank());
        allReduce(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.INT32, op);
    }

    /**
     * Out-of-place allReduce of {@code long[]} arrays of the same length (INT64).
     *
     * @param send this rank's values
     * @param recv receives the reduction over all ranks
     * @param op   the reduction
     */
    default void allReduce(long[] send, long[] recv, RedOp op) {
        sameLength(send.length, recv.length, rank());
        allReduce(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.INT64, op);
    }

    /**
     * In-place broadcast of a whole {@code float[]} (FLOAT32) from {@code root}.
     *
     * @param data the root's values; on the other ranks, replaced by them
     * @param root the rank whose array is sent
     */
    default void broadcast(float[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, data.length, DataType.FLOAT32, root);
    }

    /**
     * In-place broadcast of a whole {@code double[]} (FLOAT64) from {@code root}.
     *
     * @param data the root's values; on the other ranks, replaced by them
     * @param root the rank whose array is sent
     */
    default void broadcast(double[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, data.length, DataType.FLOAT64, root);
    }

    /**
     * In-place broadcast of a whole {@code int[]} (INT32) from {@code root}.
     *
     * @param data the root's values; on the other ranks, replaced by them
     * @param root the rank whose array is sent
     */
    default void broadcast(int[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, data.length, DataType.INT32, root);
    }

    /**
     * In-place broadcast of a whole {@code long[]} (INT64) from {@code root}.
     *
     * @param data the root's values; on the other ranks, replaced by them
     * @param root the rank whose array is sent
     */
    default void broadcast(long[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, data.length, DataType.INT64, root);
    }

    /**
     * In-place broadcast of a whole {@code byte[]} (INT8) from {@code root}.
     *
     * @param data the root's values; on the other ranks, replaced by them
     * @param root the rank whose array is sent
     */
    default void broadcast(byte[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, data.length, DataType.INT8, root);
    }

    /**
     * In-place reduce of a whole {@code float[]} (FLOAT32): {@code root}'s array receives the reduction.
     *
     * @param data this rank's values (on the root, replaced by the result)
     * @param op   the reduction
     * @param root the rank that receives the result
     */
    default void reduce(float[] data, RedOp op, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        reduce(s, s, data.length, DataType.FLOAT32, op, root);
    }

    /**
     * In-place reduce of a whole {@code double[]} (FLOAT64): {@code root}'s array receives the reduction.
     *
     * @param data this rank's values (on the root, replaced by the result)
     * @param op   the reduction
     * @param root the rank that receives the result
     */
    default void reduce(double[] data, RedOp op, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        reduce(s, s, data.length, DataType.FLOAT64, op, root);
    }

    /**
     * AllGather of {@code float[]} arrays (FLOAT32); {@code recv.length} must be {@code size() * send.length}.
     *
     * @param send this rank's block
     * @param recv receives every rank's block, in rank order
     */
    default void allGather(float[] send, float[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.FLOAT32);
    }

    /**
     * AllGather of {@code double[]} arrays (FLOAT64); {@code recv.length} must be {@code size() * send.length}.
     *
     * @param send this rank's block
     * @param recv receives every rank's block, in rank order
     */
    default void allGather(double[] send, double[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.FLOAT64);
    }

    /**
     * AllGather of {@code int[]} arrays (INT32); {@code recv.length} must be {@code size() * send.length}.
     *
     * @param send this rank's block
     * @param recv receives every rank's block, in rank order
     */
    default void allGather(int[] send, int[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.INT32);
    }

    /**
     * AllGather of {@code long[]} arrays (INT64); {@code recv.length} must be {@code size() * send.length}.
     *
     * @param send this rank's block
     * @param recv receives every rank's block, in rank order
     */
    default void allGather(long[] send, long[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), send.length, DataType.INT64);
    }

    /**
     * ReduceScatter of {@code float[]} arrays (FLOAT32); {@code send.length} must be {@code size() * recv.length}.
     *
     * @param send {@code size()} blocks of {@code recv.length} values
     * @param recv receives the reduction of block {@code rank()}
     * @param op   the reduction
     */
    default void reduceScatter(float[] send, float[] recv, RedOp op) {
        reduceScatter(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), recv.length, DataType.FLOAT32, op);
    }

    /**
     * ReduceScatter of {@code double[]} arrays (FLOAT64); {@code send.length} must be {@code size() * recv.length}.
     *
     * @param send {@code size()} blocks of {@code recv.length} values
     * @param recv receives the reduction of block {@code rank()}
     * @param op   the reduction
     */
    default void reduceScatter(double[] send, double[] recv, RedOp op) {
        reduceScatter(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), recv.length, DataType.FLOAT64, op);
    }

    /**
     * Sends a whole {@code float[]} (FLOAT32) to {@code peer}, which receives an array of the same length.
     *
     * @param data the values to send
     * @param peer the receiving rank
     */
    default void send(float[] data, int peer) {
        send(MemorySegment.ofArray(data), data.length, DataType.FLOAT32, peer);
    }

    /**
     * Receives a whole {@code float[]} (FLOAT32) from {@code peer}.
     *
     * @param data where the values are written (its length is the count)
     * @param peer the sending rank
     */
    default void recv(float[] data, int peer) {
        recv(MemorySegment.ofArray(data), data.length, DataType.FLOAT32, peer);
    }

    /**
     * Sends a whole {@code byte[]} (INT8) to {@code peer}, which receives an array of the same length.
     *
     * @param data the values to send
     * @param peer the receiving rank
     */
    default void send(byte[] data, int peer) {
        send(MemorySegment.ofArray(data), data.length, DataType.INT8, peer);
    }

    /**
     * Receives a whole {@code byte[]} (INT8) from {@code peer}.
     *
     * @param data where the values are written (its length is the count)
     * @param peer the sending rank
     */
    default void recv(byte[] data, int peer) {
        recv(MemorySegment.ofArray(data), data.length, DataType.INT8, peer);
    }

    private static void sameLength(int send, int recv, int rank) {
        if (send != recv) {
            throw new JcclException(Result.INVALID_ARGUMENT, "rank " + rank + ": " + Collective.ALL_REDUCE.ncclName()
                    + ": send and receive arrays differ in length: " + send + " vs " + recv);
        }
    }
}
