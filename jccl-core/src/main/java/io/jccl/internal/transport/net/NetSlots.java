package io.jccl.internal.transport.net;

import io.jccl.internal.transport.ConnFifo;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The wire form of one network slot, in one of two modes. <b>Framed</b> (host connectors, over a {@link ConnFifo}):
 * the payload followed by a 16-byte trailer (the call's tag, the step number and a CRC32C over payload + tag + step,
 * or 0 when checksums are off), written into the FIFO's spare bytes after the slot so that one plugin message
 * carries both; the step makes a desynchronised stream fail loudly, the CRC makes corruption in transit fail loudly.
 * <b>Bare</b> (GPU connectors): slots exactly {@code slotBytes} apart with no room after them; the producer (a
 * kernel) writes each step's size into a word of its own before it publishes the step, and the message is that many
 * bytes of the slot (the receiver's kernel knows how much to expect); with checksums a bare slot's trailer travels as
 * a message of its own ({@link BareTrailers}).
 *
 * <p>Owned by: the proxy thread (one instance per proxy connection). Mirrors: NCCL's net transport, plus an
 * integrity check NCCL does not have.
 */
final class NetSlots {
    /** Bytes after the payload (framed mode). */
    static final int TRAILER_BYTES = 16;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** The FIFO of a framed connector; null in bare mode. */
    private final ConnFifo fifo;
    /** Bare mode, sending: the producer's size words, one per step of the FIFO; else null. */
    private final MemorySegment sizes;
    private final MemorySegment data;
    private final int stepBytes;
    private final ByteBuffer[] wide;
    private final CRC32C crc;

    private NetSlots(ConnFifo fifo, MemorySegment data, int stepBytes, MemorySegment sizes) {
        this.fifo = fifo;
        this.sizes = sizes;
        this.data = data;
        this.stepBytes = stepBytes;
        if (fifo == null) {
            this.wide = null;
            this.crc = null;
        } else {
            this.wide = new ByteBuffer[ConnFifo.NSTEPS];
            this.crc = new CRC32C();
            for (int i = 0; i < ConnFifo.NSTEPS; i++) {
                wide[i] = data.asSlice(fifo.slotOffset(i), stepBytes + TRAILER_BYTES).asByteBuffer();
            }
        }
    }

    /** Slots of {@code fifo}, which must leave {@link #TRAILER_BYTES} after each slot. */
    static NetSlots framed(ConnFifo fifo) {
        return new NetSlots(fifo, fifo.data(), fifo.stepBytes(), null);
    }

    /**
     * {@link ConnFifo#NSTEPS} slots of {@code slotBytes}, back to back at the start of {@code data}; {@code sizes}:
     * when sending, the {@link ConnFifo#NSTEPS} native words where the producer writes each step's size (null when
     * receiving).
     */
    static NetSlots bare(MemorySegment data, int slotBytes, MemorySegment sizes) {
        return new NetSlots(null, data, slotBytes, sizes);
    }

    /** True for slots without trailer (GPU connectors). */
    boolean bare() {
        return fifo == null;
    }

    /** The memory of all slots (what the plugin registers). */
    MemorySegment data() {
        return data;
    }

    int stepBytes() {
        return stepBytes;
    }

    /** Offset of the slot of {@code step} in {@link #data()}. */
    long slotOffset(long step) {
        return fifo != null ? fifo.slotOffset(step) : (step & (ConnFifo.NSTEPS - 1)) * (long) stepBytes;
    }

    /** Slot size on the wire: the largest message a receive takes. */
    int wireBytes() {
        return fifo != null ? stepBytes + TRAILER_BYTES : stepBytes;
    }

    /**
     * The message to send for a published {@code step}: framed, writes the trailer after the size the worker
     * published; bare, the size the producer wrote for the step (read after the tail that published it). Returns the
     * message size.
     *
     * @throws IllegalStateException when a bare producer wrote a size outside {@code [1, slotBytes]}
     */
    int seal(long step, boolean checksum) {
        if (fifo == null) {
            long size = sizes.get(ValueLayout.JAVA_LONG, 8L * (step & (ConnFifo.NSTEPS - 1)));
            if (size <= 0 || size > stepBytes) {
                throw new IllegalStateException("the kernel published step " + step + " with a size of " + size
                        + " bytes (slots hold " + stepBytes + ")");
            }
            return (int) size;
        }
        int size = fifo.size(step);
        long at = fifo.slotOffset(step) + size;
        data.set(LONG, at, fifo.tag(step));
        data.set(INT, at + 8, (int) step);
        data.set(INT, at + 12, checksum ? crc(step, size) : 0);
        return size + TRAILER_BYTES;
    }

    /** Framed: publishes the size and tag of a received {@code step} of {@code size} payload bytes to the worker. */
    void publish(long step, int size) {
        fifo.setSize(step, size);
        fifo.setTag(step, tag(step, size));
    }

    /** CRC32C over the payload, tag and step of a slot of {@code size} payload bytes (framed). */
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
