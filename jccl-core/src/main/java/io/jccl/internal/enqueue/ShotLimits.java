package io.jccl.internal.enqueue;

import io.jccl.internal.param.Params;

/**
 * Up to which sizes a single-host allReduce runs one-shot or two-shot through the shared areas instead of the ring,
 * and how large each rank's area is. The same on every rank: it depends only on the communicator's size and on
 * JCCL_ONESHOT_MAX_BYTES / JCCL_TWOSHOT_MAX_BYTES, which launchers pass to every rank.
 *
 * <p>Owned by: immutable, computed at init. Mirrors: the one-shot / two-shot size limits of NCCL's symmetric kernels.
 *
 * @param oneShotMaxBytes largest allReduce (bytes per rank) run one-shot; 0: never
 * @param twoShotMaxBytes largest allReduce run two-shot (above the one-shot limit); 0: never
 * @param areaBytes       bytes of each of a rank's two area buffers (a two-shot chunk)
 */
public record ShotLimits(long oneShotMaxBytes, long twoShotMaxBytes, long areaBytes) {
    /** A two-shot chunk: each rank's area buffer holds one, a slice per rank ({@code -Djccl.twoShotChunkBytes}). */
    static final long TWO_SHOT_CHUNK_BYTES = io.jccl.internal.param.InternalProperties.TWO_SHOT_CHUNK_BYTES.get();

    /**
     * Largest communicator with shared areas: each rank maps every peer's area (n² mappings in all, against the
     * kernel's limit of about 65,000 per process when the ranks are threads of one process), and a one-shot reads n
     * areas, which the ring and the tree beat long before that.
     */
    public static final int MAX_RANKS = 64;

    /**
     * The limits for {@code nRanks} ranks on {@code nChannels} channels, from the environment or the defaults measured
     * on a 2-core machine (A/B against the ring and one-shot, 3 rounds of ./jccl perf -np N, medians, µs, out of place
     * / in place):
     * <ul>
     *   <li>2 ranks: one-shot up to 64 KiB (19.6 against 25.4 two-shot), two-shot up to 512 KiB (128 KiB: 22.5 / 27.8
     *       against one-shot's 38.3 / 35.7; 512 KiB: 104 / 92 against 145 / 133), the ring above (equal at 1-32 MiB,
     *       faster at 64-128 MiB: 18.4 against 22-25 ms);</li>
     *   <li>more ranks on one channel: one-shot up to 64 KiB / (ranks - 1) (4 ranks, 3 rounds at 16 / 32 / 64 KiB:
     *       one-shot 15-22 / 20-38 / 38-69 against two-shot 15-26 / 24-37 / 34-46), two-shot above at every size (4
     * ranks:
     *       1 MiB 624 / 570 against 752 / 696; 32 MiB 24.4 / 27.3 ms against 27.4 / 68.9; 128 MiB 108 / 91 ms against
     *       140 / 114); with several channels the ring's channel threads share the work, so two-shot stays off.</li>
     * </ul>
     */
    public static ShotLimits of(int nRanks, int nChannels) {
        long two = Params.TWOSHOT_MAX_BYTES.get();
        if (two < 0) {
            two = nRanks == 2 ? 512L << 10 : nChannels == 1 ? Long.MAX_VALUE : 0;
        }
        long one = Params.ONESHOT_MAX_BYTES.get();
        if (one < 0) {
            one = nRanks == 2 ? (two > 0 ? 64L << 10 : 512L << 10)
                    : Math.max(4L << 10, (64L << 10) / Math.max(1, nRanks - 1));
        }
        two = two > one ? two : 0;
        return new ShotLimits(one, two, two > 0 ? Math.max(one, Math.min(two, TWO_SHOT_CHUNK_BYTES)) : one);
    }

    /** No shared-area algorithms (several hosts, no shared memory, one rank). */
    public static final ShotLimits NONE = new ShotLimits(0, 0, 0);
}
