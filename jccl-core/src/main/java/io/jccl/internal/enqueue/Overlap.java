package io.jccl.internal.enqueue;

import io.jccl.Collective;

import java.lang.foreign.MemorySegment;

/**
 * Refuses a call whose send and receive buffers overlap other than in the collective's in-place layout: the
 * algorithms write results while they still read inputs, so a partial overlap (a receive buffer shifted by a few
 * elements from the send buffer, an allGather's send block at another rank's offset) would return wrong data.
 * In place is the send data exactly at the offset NCCL defines: the start of the receive buffer (allReduce,
 * broadcast, reduce, allToAll), this rank's block of the receive buffer (allGather, gather), or the receive buffer
 * being this rank's block of the send buffer (reduceScatter, scatter). Only the bytes the call touches count.
 *
 * <p>Native segments are compared by address, heap segments only when they view the same array. Allocation-free
 * except when refusing.
 *
 * <p>Owned by: stateless. Mirrors: the in-place layouts of NCCL's documentation (and the GPU side's
 * {@code ArgChecks.overlap}).
 */
public final class Overlap {
    private Overlap() {
    }

    /**
     * Throws INVALID_ARGUMENT if the first {@code sendBytes} of {@code send} and the first {@code recvBytes} of
     * {@code recv} overlap other than in {@code coll}'s in-place layout, where this rank's block is {@code block}
     * bytes from the start. Either size 0 (a buffer this rank does not use) passes.
     */
    static void check(Collective coll, MemorySegment send, long sendBytes, MemorySegment recv, long recvBytes,
                      long block, int rank, String call) {
        if (sendBytes == 0 || recvBytes == 0) {
            return; // a buffer this rank does not use, possibly null
        }
        // as if both lay in one memory (one address space, or one array): where the send data starts relative to recv
        long sendAt = send.address() - recv.address();
        long inPlaceAt = switch (coll) {
            case ALL_GATHER, GATHER -> block;
            case REDUCE_SCATTER, SCATTER -> -block;
            default -> 0;
        };
        if (!clashes(sendAt, sendBytes, recvBytes, inPlaceAt)) {
            return;
        }
        // the used bytes would overlap: they do if both segments are native or views of one array (an empty
        // Optional, returned for different arrays or kinds, is a constant: nothing is allocated unless refusing)
        if (send.asOverlappingSlice(recv).isEmpty()) {
            return;
        }
        throw ArgsCheck.bad(rank, call, "the send buffer (" + sendBytes + " bytes used) and the receive buffer ("
                + recvBytes + " bytes used) overlap: " + where(sendAt) + "; out of place they must not overlap, and "
                + inPlace(coll, block));
    }

    /**
     * True when the first {@code sendBytes} of the send buffer, starting {@code sendAt} bytes after the receive
     * buffer (negative: before it), and the first {@code recvBytes} of the receive buffer overlap, other than with the
     * send data exactly {@code inPlaceAt} bytes into the receive buffer (the in-place layout). Either size 0 (a buffer
     * the call does not use) never clashes. The host and GPU argument checks share it.
     */
    public static boolean clashes(long sendAt, long sendBytes, long recvBytes, long inPlaceAt) {
        return sendBytes > 0 && recvBytes > 0 && sendAt != inPlaceAt && sendAt < recvBytes && -sendAt < sendBytes;
    }

    private static String where(long sendAt) {
        return sendAt == 0 ? "both start at the same byte"
                : sendAt > 0 ? "the send buffer starts " + sendAt + " bytes into the receive buffer"
                : "the receive buffer starts " + -sendAt + " bytes into the send buffer";
    }

    private static String inPlace(Collective coll, long block) {
        return switch (coll) {
            case ALL_GATHER, GATHER -> "in place the send data must be this rank's block of the receive buffer, "
                    + block + " bytes into it";
            case REDUCE_SCATTER, SCATTER -> "in place the receive buffer must be this rank's block of the send "
                    + "buffer, " + block + " bytes into it";
            default -> "in place they must be the same buffer (the same start)";
        };
    }
}
