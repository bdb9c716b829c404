package io.jccl.tools.perf;

/**
 * Element counts and in-place offsets of one collective call for a nominal message size, derived the way
 * nccl-tests does ({@code getCollByteCount}): for allgather, reducescatter, alltoall, gather and scatter the size is
 * the total buffer, split over the ranks and rounded down so each rank's block is a multiple of 16 bytes.
 * A value computed once per (size, type); mirrors nccl-tests' {@code setupArgs}.
 *
 * @param sendCount         elements in each rank's send buffer
 * @param recvCount         elements in each rank's receive buffer
 * @param paramCount        the count passed to the call (and printed in the count column)
 * @param sendInplaceOffset in place, rank r's send data starts at {@code r * sendInplaceOffset} elements of the
 *                          receive buffer
 * @param recvInplaceOffset in place, rank r's result starts at {@code r * recvInplaceOffset} elements
 * @param eltSize           bytes per element
 */
public record BufferLayout(long sendCount, long recvCount, long paramCount, long sendInplaceOffset,
                           long recvInplaceOffset, int eltSize) {

    /** The layout of {@code coll} for a nominal size of {@code sizeBytes} over {@code nRanks} ranks. */
    public static BufferLayout of(PerfCollective coll, long sizeBytes, int eltSize, int nRanks) {
        if (eltSize < 1 || nRanks < 1 || sizeBytes < 0) {
            throw new IllegalArgumentException("bad layout input: size " + sizeBytes + " elt " + eltSize
                    + " ranks " + nRanks);
        }
        long count = sizeBytes / eltSize;
        long block = (count / nRanks) & ~(Math.max(1, 16 / eltSize) - 1L);
        return switch (coll) {
            case ALL_REDUCE, BROADCAST, REDUCE, SEND_RECV -> new BufferLayout(count, count, count, 0, 0, eltSize);
            case ALL_GATHER, GATHER -> new BufferLayout(block, block * nRanks, block, block, 0, eltSize);
            case REDUCE_SCATTER, SCATTER -> new BufferLayout(block * nRanks, block, block, 0, block, eltSize);
            case ALL_TO_ALL -> new BufferLayout(block * nRanks, block * nRanks, block, 0, 0, eltSize);
        };
    }

    /** The size column: the larger of the send and receive buffers, in bytes. */
    public long printedBytes() {
        return Math.max(sendCount, recvCount) * eltSize;
    }

    public long sendBytes() {
        return sendCount * eltSize;
    }

    public long recvBytes() {
        return recvCount * eltSize;
    }
}
