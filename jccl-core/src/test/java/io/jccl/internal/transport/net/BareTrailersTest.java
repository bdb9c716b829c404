package io.jccl.internal.transport.net;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The trailers of checksummed bare (GPU) slots: what the sender seals is a CRC32C over the whole slot, the link's
 * tag and the step (checked against {@link CRC32C} over a heap copy of those bytes), a byte flipped anywhere in the
 * slot or the covered part of the trailer is seen, and the cost of sealing one 128 KiB slot is logged.
 */
class BareTrailersTest {
    private static final int SLOT = 128 << 10;

    private static BareTrailers trailers(MemorySegment trailers, MemorySegment slots, int slotBytes, long tag) {
        return new BareTrailers(NetSlots.bare(slots, slotBytes, null), trailers, null, tag);
    }

    @Test
    void theSealCoversTheWholeSlotTagAndStepAndEveryFlippedByteIsSeen() {
        int slotBytes = 6152;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment slots = arena.allocate(8L * slotBytes, 8);
            SplittableRandom random = new SplittableRandom(7);
            for (long i = 0; i < slots.byteSize(); i++) {
                slots.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
            }
            long tag = BareTrailers.linkTag(3, 1);
            MemorySegment trailer = BareTrailers.allocate(arena);
            BareTrailers t = trailers(trailer, slots, slotBytes, tag);
            long step = 13;
            t.seal(step, slotBytes);
            assertThat(t.offset(step)).isEqualTo(5L * NetSlots.TRAILER_BYTES);
            assertThat(t.step(step)).isEqualTo(13);
            assertThat(t.sentTag(step)).isEqualTo(tag).isEqualTo(3L << 32 | 1);

            CRC32C reference = new CRC32C();
            byte[] copy = slots.asSlice(5L * slotBytes, slotBytes).toArray(ValueLayout.JAVA_BYTE);
            reference.update(copy);
            reference.update(ByteBuffer.allocate(12).putLong(tag).putInt(13).flip());
            assertThat(t.sentCrc(step)).isEqualTo((int) reference.getValue());
            assertThat(t.crc(step, slotBytes)).as("unchanged bytes verify").isEqualTo(t.sentCrc(step));

            long slotAt = 5L * slotBytes;
            long[] places = {slotAt, slotAt + 1, slotAt + slotBytes / 2, slotAt + slotBytes - 1};
            for (long at : places) {
                flip(slots, at);
                assertThat(t.crc(step, slotBytes)).as("slot byte %d flipped", at - slotAt)
                        .isNotEqualTo(t.sentCrc(step));
                flip(slots, at);
            }
            for (long at = 0; at < 12; at++) {
                flip(trailer, t.offset(step) + at);
                assertThat(t.crc(step, slotBytes)).as("trailer byte %d flipped", at).isNotEqualTo(t.sentCrc(step));
                flip(trailer, t.offset(step) + at);
            }
            flip(slots, 4L * slotBytes + 17);
            flip(slots, 6L * slotBytes);
            assertThat(t.crc(step, slotBytes)).as("the neighbouring slots are not covered")
                    .isEqualTo(t.sentCrc(step));
        }
    }

    @Test
    void aPartialSlotIsCoveredUpToTheSizeTheKernelPublished() {
        int slotBytes = 6152;
        int size = 1001;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment slots = arena.allocate(8L * slotBytes, 8);
            SplittableRandom random = new SplittableRandom(11);
            for (long i = 0; i < slots.byteSize(); i++) {
                slots.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
            }
            long tag = BareTrailers.linkTag(0, 2);
            BareTrailers t = trailers(BareTrailers.allocate(arena), slots, slotBytes, tag);
            long step = 2;
            t.seal(step, size);
            CRC32C reference = new CRC32C();
            reference.update(slots.asSlice(2L * slotBytes, size).toArray(ValueLayout.JAVA_BYTE));
            reference.update(ByteBuffer.allocate(12).putLong(tag).putInt(2).flip());
            assertThat(t.sentCrc(step)).isEqualTo((int) reference.getValue()).isEqualTo(t.crc(step, size));
            assertThat(t.crc(step, slotBytes)).as("the whole slot is another message").isNotEqualTo(t.sentCrc(step));
            flip(slots, 2L * slotBytes + size - 1);
            assertThat(t.crc(step, size)).as("the last byte sent is covered").isNotEqualTo(t.sentCrc(step));
            flip(slots, 2L * slotBytes + size - 1);
            flip(slots, 2L * slotBytes + size);
            assertThat(t.crc(step, size)).as("the bytes after it are not").isEqualTo(t.sentCrc(step));
        }
    }

    private static void flip(MemorySegment s, long at) {
        s.set(ValueLayout.JAVA_BYTE, at, (byte) (s.get(ValueLayout.JAVA_BYTE, at) ^ 0x10));
    }

    /** Logs what sealing (the sender) or checking (the receiver) costs per 128 KiB slot; asserts only correctness. */
    @Test
    void theCostOfOne128KiBSlotIsLogged() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment slots = arena.allocate(8L * SLOT, 4096);
            slots.fill((byte) 0x5a);
            BareTrailers t = trailers(BareTrailers.allocate(arena), slots, SLOT, BareTrailers.linkTag(0, 0));
            int warm = 4000;
            int measured = 8000;
            for (int s = 0; s < warm; s++) {
                t.seal(s, SLOT);
            }
            long best = Long.MAX_VALUE;
            for (int round = 0; round < 3; round++) {
                long t0 = System.nanoTime();
                for (int s = 0; s < measured; s++) {
                    t.seal(s, SLOT);
                }
                best = Math.min(best, System.nanoTime() - t0);
            }
            double nsPerSlot = (double) best / measured;
            System.out.printf("CRC32C of one %d KiB GPU slot (seal: slot + 12 trailer bytes): %.0f ns, %.1f GB/s%n",
                    SLOT >> 10, nsPerSlot, SLOT / nsPerSlot);
            CRC32C reference = new CRC32C();
            reference.update(slots.asSlice(7L * SLOT, SLOT).toArray(ValueLayout.JAVA_BYTE));
            reference.update(ByteBuffer.allocate(12).putLong(0).putInt(measured - 1).flip());
            assertThat(t.sentCrc(measured - 1)).isEqualTo((int) reference.getValue()).isEqualTo(t.crc(measured - 1, SLOT));
        }
    }
}
