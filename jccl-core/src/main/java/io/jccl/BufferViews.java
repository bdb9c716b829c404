package io.jccl;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The {@link ByteBuffer}s of {@link BufferCollectives} as segments (from position to limit), after the one check a
 * segment cannot carry: the byte order. JCCL reads and writes elements in the platform's order, so a buffer of another
 * order ({@code ByteBuffer.allocate} is big-endian) holding elements wider than one byte would be reduced byte-swapped;
 * it is refused instead. A null buffer stays null (a buffer this rank does not use); every other check (size,
 * read-only, overlap) is made on the segment by the call itself.
 *
 * <p>Owned by: stateless. Mirrors: nothing in NCCL, whose buffers are raw device pointers.
 */
final class BufferViews {
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    private BufferViews() {
    }

    /**
     * The segment view of {@code b}, or null for null.
     *
     * @param b    the buffer, or null
     * @param type the call's element type (null is left to the call's own check)
     * @param role "send" or "receive", for the message
     * @param coll the call, for the message
     * @param rank this rank, for the message
     * @return the view of {@code b} from its position to its limit
     */
    static MemorySegment of(ByteBuffer b, DataType type, String role, Collective coll, int rank) {
        if (b == null) {
            return null;
        }
        if (type != null && type.sizeBytes() > 1 && b.order() != NATIVE) {
            throw new JcclException(Result.INVALID_ARGUMENT, "rank " + rank + ": " + coll.ncclName() + ": " + role
                    + " buffer is " + b.order() + "; JCCL reads and writes " + type.ncclName()
                    + " elements in the platform's byte order (" + NATIVE
                    + "): call buffer.order(ByteOrder.nativeOrder()) before filling it");
        }
        return MemorySegment.ofBuffer(b);
    }
}
