package io.jccl.internal.transport.net;

import io.jccl.internal.transport.ConnFifo;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The wire form of one network slot: the payload followed by a 16-byte trailer (the call's tag, the step number and
 * a CRC32C over payload + tag + step, or 0 when checksums are off), written into the FIFO's spare bytes after the
 * slot so that one plugin message carries both. The step makes a desynchronised stream fail loudly; the CRC makes
 * corruption in transit fail loudly.
 *
 * <p>Owned by: the proxy thread (one instance per proxy connection). Mirrors: NCCL's net transport, plus an
 * integrity check NCCL does not have.
 */
final class NetSlots {
    /** Bytes after the payload. */
    static final int TRAILER_BYTES = 16;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final ConnFifo fifo;
    private final MemorySegment data;
    private final ByteBuffer[] wide = new ByteBuffer[ConnFifo.NSTEPS];
    private final CRC32C crc = new CRC32C();

    NetSlots(ConnFifo fifo) {
        this.fifo = fifo;
        this.data = fifo.data();
        for (int i = 0; i < ConnFifo.NSTEPS; i++) {
            wide[i] = data.asSlice(fifo.slotOffset(i), fifo.stepBytes() + TRAILER_BYTES).asByteBuffer();
        }
    }

    /** Slot size on the wire. */
    int wireBytes() {
        return fifo.stepBytes() + TRAILER_BYTES;
    }

    /** Writes the trailer after {@code size} payload bytes of {@code step}; returns the message size. */
    int seal(long step, int size, long tag, boolean checksum) {
        long at = fifo.slotOffset(step) + size;
        data.set(LONG, at, tag);
        data.set(INT, at + 8, (int) step);
        data.set(INT, at + 12, checksum ? crc(step, size) : 0);
        return size + TRAILER_BYTES;
    }

    /** CRC32C over the payload, tag and step of a slot of {@code size} payload bytes. */
    int crc(long step, int size) {
        ByteBuffer b = wide[(int) (step & (ConnFifo.NSTEPS - 1))];
        b.clear().limit(size + 12);
        crc.reset();
        crc.update(b);
        return (int) crc.getValue();
    }

    long tag(long step, int size) {
        return data.get(LONG, fifo.slotOffset(step) + size);
    }

    int step(long step, int size) {
        return data.get(INT, fifo.slotOffset(step) + size + 8);
    }

    int sentCrc(long step, int size) {
        return data.get(INT, fifo.slotOffset(step) + size + 12);
    }
}
