package io.jccl.internal.transport;

/**
 * The flag-in-line protocols: LL packs 8 data bytes and an 8-byte flag in each 16-byte line; LL128 packs 120 data
 * bytes and an 8-byte flag in each 128-byte line. The flag (released after the line's data) holds the step number + 1
 * in its low 40 bits and the step's byte count in its high 24 bits, so a reader that waits for its own expected
 * last line also learns whether the sender sent what it expected.
 * Owned by: immutable. Mirrors: NCCL's LL (ncclLLFifoLine) and LL128 line layouts, in host memory.
 */
public enum LineFormat {
    LL(16, 8, 256),
    LL128(128, 120, 256);

    /** Bytes per line. */
    public final int lineBytes;
    /** Data bytes per line. */
    public final int dataBytes;
    /** Lines per step (slot). */
    public final int linesPerStep;

    LineFormat(int lineBytes, int dataBytes, int linesPerStep) {
        this.lineBytes = lineBytes;
        this.dataBytes = dataBytes;
        this.linesPerStep = linesPerStep;
    }

    /** Payload capacity of one step. */
    public int stepDataBytes() {
        return dataBytes * linesPerStep;
    }

    /** Bytes of one step's slot. */
    public int slotBytes() {
        return lineBytes * linesPerStep;
    }

    /** Bytes of the whole region ({@link ConnFifo#NSTEPS} slots). */
    public long regionBytes() {
        return (long) slotBytes() * ConnFifo.NSTEPS;
    }

    static long flag(long step, int bytes) {
        return ((long) bytes << 40) | ((step + 1) & 0xff_ffff_ffffL);
    }

    static boolean isStep(long flag, long step) {
        return (flag & 0xff_ffff_ffffL) == ((step + 1) & 0xff_ffff_ffffL);
    }

    static int bytesOf(long flag) {
        return (int) (flag >>> 40);
    }

    /** Lines that carry {@code bytes} (at least one, so even an empty step has a flag). */
    int lines(int bytes) {
        return Math.max(1, (bytes + dataBytes - 1) / dataBytes);
    }
}
