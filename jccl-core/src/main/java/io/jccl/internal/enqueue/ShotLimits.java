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
    /** A two-shot chunk: each rank's area buffer holds one, a slice per rank. */
    static final long TWO_SHOT_CHUNK_BYTES = 1L << 20;

    /** The limits for {@code nRanks} ranks from the environment (defaults measured on 2-core machines). */
    public static ShotLimits of(int nRanks) {
        long one = Params.ONESHOT_MAX_BYTES.get();
        if (one < 0) {
            // 2 ranks: one-shot beat the ring at 512 KiB (A/B, 5 rounds: 128 vs 173 µs median); with more ranks
            // each reads every peer's data and the ring wins sooner (4 ranks: 128 KiB was no better one-shot)
            one = nRanks == 2 ? 512L << 10 : Math.max(16L << 10, (256L << 10) / Math.max(1, nRanks - 1));
        }
        long two = Params.TWOSHOT_MAX_BYTES.get();
        if (two < 0) {
            two = 0;
        }
        two = two > one ? two : 0;
        return new ShotLimits(one, two, two > 0 ? Math.max(one, TWO_SHOT_CHUNK_BYTES) : one);
    }

    /** No shared-area algorithms (several hosts, no shared memory, one rank). */
    public static final ShotLimits NONE = new ShotLimits(0, 0, 0);
}
