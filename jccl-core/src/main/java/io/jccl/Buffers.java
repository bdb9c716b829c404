package io.jccl;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Turns the {@link ByteBuffer}s of {@link BufferCollectives} into segments, refusing those whose layout JCCL cannot
 * honour: JCCL reads and writes elements in the platform's byte order, so a buffer in the other order (a heap
 * buffer's default, big-endian) would be reduced as byte-swapped numbers. Owned by: stateless, the calling thread.
 */
final class Buffers {
    private Buffers() {
    }

    /** The segment of {@code b} from its position to its limit; null stays null (a buffer the call does not use). */
    static MemorySegment segment(BufferCollectives comm, ByteBuffer b, DataType type, String call, String which) {
        if (b == null) {
            return null;
        }
        if (type != null && type.sizeBytes() > 1 && b.order() != ByteOrder.nativeOrder()) {
            String rank = comm instanceof Communicator c ? "rank " + c.rank() + ": " : "";
            throw new JcclException(Result.INVALID_ARGUMENT, rank + call + ": " + which + " buffer is "
                    + b.order() + " but JCCL reads and writes " + type.ncclName() + " elements in the platform's "
                    + "byte order (" + ByteOrder.nativeOrder() + "): call buffer.order(ByteOrder.nativeOrder()) "
                    + "before filling it");
        }
        return MemorySegment.ofBuffer(b);
    }
}
