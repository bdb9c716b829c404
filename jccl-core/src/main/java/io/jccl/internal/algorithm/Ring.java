package io.jccl.internal.algorithm;

/**
 * One channel's ring: the ranks in ring order, this rank's position and its neighbours (NCCL's {@code ncclRing}:
 * prev, next, index, userRanks). Owned by: immutable, computed at init. Mirrors: ncclRing in channel.h.
 *
 * @param userRanks ranks in ring order
 * @param index     this rank's position in {@code userRanks}
 */
public record Ring(int[] userRanks, int index) {
    /** The ring 0 → 1 → ... → n-1 → 0. */
    public static Ring identity(int nRanks, int rank) {
        int[] r = new int[nRanks];
        for (int i = 0; i < nRanks; i++) {
            r[i] = i;
        }
        return new Ring(r, rank);
    }

    public int nRanks() {
        return userRanks.length;
    }

    public int next() {
        return userRanks[(index + 1) % userRanks.length];
    }

    public int prev() {
        return userRanks[(index - 1 + userRanks.length) % userRanks.length];
    }

    /** The rank {@code k} positions after this one (negative: before). */
    public int rankAt(int k) {
        int n = userRanks.length;
        return userRanks[Math.floorMod(index + k, n)];
    }

    /** Ring position of {@code rank}. */
    public int positionOf(int rank) {
        for (int i = 0; i < userRanks.length; i++) {
            if (userRanks[i] == rank) {
                return i;
            }
        }
        throw new IllegalArgumentException("rank " + rank + " not in ring");
    }
}
