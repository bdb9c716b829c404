package io.jccl.internal.transport.net;

import io.jccl.internal.transport.ConnFifo;
import io.jccl.net.NetPlugin;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The CRC32C trailers of a checksummed <b>bare</b> connector (a GPU kernel's slots, which have no room after them
 * and must keep the layout the kernels were compiled for): per step a {@link NetSlots#TRAILER_BYTES}-byte trailer in
 * memory of its own, laid out as in framed mode (the link's tag, the step number, a CRC32C over the slot's bytes sent,
 * the tag and the step), which travels as a small message of its own right after the slot's message on the same comm.
 * The sending proxy {@link #seal seals} it from the slot the kernel published; the receiving proxy receives it here,
 * the slot into the kernel's FIFO, and checks both before it advances the tail the kernel polls. The memory is
 * registered with the plugin once; the slot views, the trailer views and the {@link CRC32C} are made once, so a
 * step allocates nothing.
 *
 * <p>Owned by: the proxy thread (one per connector). Mirrors: nothing in NCCL (net.cc sends the data only).
 */
final class BareTrailers {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Bytes of a trailer the CRC covers: tag and step. */
    private static final int COVERED_BYTES = 12;

    private final MemorySegment memory;
    private final NetPlugin.MemHandle mh;
    private final long tag;
    private final int slotBytes;
    private final ByteBuffer[] slotViews = new ByteBuffer[ConnFifo.NSTEPS];
    private final ByteBuffer[] coveredViews = new ByteBuffer[ConnFifo.NSTEPS];
    private final CRC32C crc = new CRC32C();

    /**
     * Trailers of {@code slots} (bare) in {@code memory} (from {@link #allocate}), registered as {@code mh} on the
     * connector's comm; {@code tag}: what the link's trailers carry ({@link #linkTag}).
     */
    BareTrailers(NetSlots slots, MemorySegment memory, NetPlugin.MemHandle mh, long tag) {
        this.memory = memory;
        this.mh = mh;
        this.tag = tag;
        this.slotBytes = slots.stepBytes();
        for (int i = 0; i < ConnFifo.NSTEPS; i++) {
            slotViews[i] = slots.data().asSlice(slots.slotOffset(i), slotBytes).asByteBuffer();
            coveredViews[i] = memory.asSlice((long) i * NetSlots.TRAILER_BYTES, COVERED_BYTES).asByteBuffer();
        }
    }

    /** Zeroed memory for the trailers of {@link ConnFifo#NSTEPS} steps, to register with the plugin. */
    static MemorySegment allocate(Arena arena) {
        return arena.allocate((long) ConnFifo.NSTEPS * NetSlots.TRAILER_BYTES, 8);
    }

    /** The tag of the link from {@code sender} on {@code channel}: both ends know it, so the CRC covers it. */
    static long linkTag(int sender, int channel) {
        return ((long) sender << 32) | channel;
    }

    /** The tag this connector's trailers carry (sender) or must carry (receiver). */
    long tag() {
        return tag;
    }

    /** The registration of the trailers' memory. */
    NetPlugin.MemHandle mh() {
        return mh;
    }

    /** Offset of the trailer of {@code step} in the registered memory. */
    long offset(long step) {
        return (step & (ConnFifo.NSTEPS - 1)) * (long) NetSlots.TRAILER_BYTES;
    }

    /** Sender: writes the trailer of {@code step} from the {@code sizeBytes} of the slot the kernel published. */
    void seal(long step, int sizeBytes) {
        long at = offset(step);
        memory.set(LONG, at, tag);
        memory.set(INT, at + 8, (int) step);
        memory.set(INT, at + 12, crc(step, sizeBytes));
    }

    /** CRC32C over the first {@code sizeBytes} of the slot of {@code step}, then the tag and step of its trailer. */
    int crc(long step, int sizeBytes) {
        int i = (int) (step & (ConnFifo.NSTEPS - 1));
        crc.reset();
        crc.update(slotViews[i].clear().limit(sizeBytes));
        crc.update(coveredViews[i].clear());
        return (int) crc.getValue();
    }

    /** Receiver: the CRC the sender computed for {@code step}. */
    int sentCrc(long step) {
        return memory.get(INT, offset(step) + 12);
    }

    /** Receiver: the step number the trailer of {@code step} names. */
    int step(long step) {
        return memory.get(INT, offset(step) + 8);
    }

    /** Receiver: the tag the trailer of {@code step} carries. */
    long sentTag(long step) {
        return memory.get(LONG, offset(step));
    }
}
