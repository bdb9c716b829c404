package io.jccl.internal.algorithm;

/**
 * Divides {@code count} elements into contiguous per-channel ranges of 64-byte-aligned size, the same way on every
 * rank. Owned by: stateless. Mirrors: the channel partitioning of NCCL's scheduleCollTasksToPlan (simplified:
 * contiguous ranges, no cells).
 */
final class ChannelSplit {
    private ChannelSplit() {
    }

    /** Elements per channel for all but the last channel. */
    public static long perChannel(long count, int elemSize, int nChannels) {
        long align = Math.max(1, 64 / elemSize);
        long per = (count + nChannels - 1) / nChannels;
        return (per + align - 1) / align * align;
    }

    public static long offset(long count, int elemSize, int nChannels, int channel) {
        return Math.min(count, channel * perChannel(count, elemSize, nChannels));
    }

    public static long count(long count, int elemSize, int nChannels, int channel) {
        long off = offset(count, elemSize, nChannels, channel);
        return Math.max(0, Math.min(count - off, perChannel(count, elemSize, nChannels)));
    }
}
