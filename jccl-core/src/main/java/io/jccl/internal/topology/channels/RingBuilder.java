package io.jccl.internal.topology.channels;

import io.jccl.JcclException;
import io.jccl.Result;

/**
 * Turns per-rank ring neighbours into ring orders and checks them: walking {@code next} from a rank must visit every
 * rank exactly once and come back. A broken ring is an INTERNAL_ERROR naming the ring and the missing rank.
 *
 * <p>Stateless; mirrors ncclBuildRings (src/graph/rings.cc).
 */
final class RingBuilder {
    private RingBuilder() {
    }

    /**
     * Ring orders for {@code nRings} rings seen from {@code rank}: {@code rings[r][i]} is the i-th rank after (and
     * including, at i = 0) {@code rank} in ring r.
     *
     * @param next next[r * nRanks + x] = the rank after x in ring r
     */
    public static int[][] buildRings(int nRings, int rank, int nRanks, int[] next) {
        int[][] rings = new int[nRings][nRanks];
        for (int r = 0; r < nRings; r++) {
            long[] seen = new long[(nRanks + 63) / 64];
            int current = rank;
            for (int i = 0; i < nRanks; i++) {
                if (current < 0 || current >= nRanks) {
                    throw new JcclException(Result.INTERNAL_ERROR, "ring " + r + " leads to rank " + current
                            + ", outside 0.." + (nRanks - 1));
                }
                rings[r][i] = current;
                seen[current >> 6] |= 1L << (current & 63);
                current = next[r * nRanks + current];
            }
            if (current != rank) {
                throw new JcclException(Result.INTERNAL_ERROR, "ring " + r + " does not loop back to start (" + current
                        + " != " + rank + ")");
            }
            for (int x = 0; x < nRanks; x++) {
                if ((seen[x >> 6] & (1L << (x & 63))) == 0) {
                    throw new JcclException(Result.INTERNAL_ERROR, "ring " + r + " does not contain rank " + x);
                }
            }
        }
        return rings;
    }
}
