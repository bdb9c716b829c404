package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;

/**
 * How the ranks of a communicator are split over its bootstrap roots in a scalable init: root g serves a contiguous
 * group of ranks, the first {@code nRanks % nRoots} roots one rank more than the others (NCCL's split of ranks over
 * the nId handles of ncclCommInitRankScalable). Besides its own group, root g hears from the first rank of group
 * g + 1 (mod nRoots), its <em>neighbour</em>, so that the last rank of each group learns its ring successor and the
 * first rank of the next group its predecessor: the groups close into one ring without the roots talking to each
 * other. With one root there is no neighbour.
 *
 * @param nRanks ranks of the communicator
 * @param nRoots bootstrap roots, in [1, nRanks]
 *
 * <p>Owned by: immutable. Mirrors: bootstrap.cc's rootIdFromRank / firstRankFromRoot / localIdFromRoot.
 */
record RootGroups(int nRanks, int nRoots) {
    RootGroups {
        if (nRanks < 1 || nRoots < 1 || nRoots > nRanks) {
            throw new JcclException(Result.INVALID_ARGUMENT, nRoots + " bootstrap roots for " + nRanks
                    + " ranks: give between 1 and " + Math.max(1, nRanks) + " UniqueIds");
        }
    }

    /** The root whose group holds {@code rank}. */
    int rootOf(int rank) {
        int q = nRanks / nRoots;
        int bigger = nRanks % nRoots;
        int inBigger = bigger * (q + 1);
        return rank < inBigger ? rank / (q + 1) : bigger + (rank - inBigger) / q;
    }

    /** The first rank of root {@code g}'s group. */
    int first(int g) {
        int q = nRanks / nRoots;
        return g * q + Math.min(g, nRanks % nRoots);
    }

    /** How many ranks root {@code g} serves (without its neighbour). */
    int size(int g) {
        return nRanks / nRoots + (g < nRanks % nRoots ? 1 : 0);
    }

    /** The rank outside root {@code g}'s group that says hello to it (the first of the next group), or -1. */
    int neighbour(int g) {
        return nRoots == 1 ? -1 : first((g + 1) % nRoots);
    }

    /** The root {@code rank} also says hello to as that root's neighbour, or -1 when it is not a first rank. */
    int neighbourRootOf(int rank) {
        int g = rootOf(rank);
        return nRoots == 1 || first(g) != rank ? -1 : (g - 1 + nRoots) % nRoots;
    }

    /** Hellos root {@code g} waits for: its group and, with several roots, its neighbour. */
    int expected(int g) {
        return size(g) + (nRoots == 1 ? 0 : 1);
    }

    /** Where {@code rank}'s hello goes in root {@code g}'s table: its place in the group, the neighbour last; or -1. */
    int slot(int g, int rank) {
        int i = rank - first(g);
        if (i >= 0 && i < size(g)) {
            return i;
        }
        return rank == neighbour(g) ? size(g) : -1;
    }

    /** The rank in slot {@code i} of root {@code g}'s table. */
    int rankAt(int g, int i) {
        return i < size(g) ? first(g) + i : neighbour(g);
    }
}
