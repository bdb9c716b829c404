package io.jccl.internal.topology.channels;

import io.jccl.JcclException;
import io.jccl.Result;

/**
 * NCCL's binary trees over n nodes (numbered 0..n-1) and the double binary tree: tree 0 is the plain tree; tree 1 is
 * tree 0 mirrored ({@code x → n-1-x}) for even n and shifted by one ({@code x → x+1 mod n}) for odd n, so that every
 * node is a leaf in at least one of the two trees and the two trees share the bandwidth.
 *
 * <p>In tree 0 a node's parent clears its lowest set bit and sets the next one (or just clears the lowest when that
 * falls outside), its children are {@code rank ± lowbit/2}, pulled in while the larger child is out of range; node 0
 * is the root with one child, the largest power of two below n.
 *
 * <p>Stateless; mirrors ncclGetBtree / ncclGetDtree (src/graph/trees.cc).
 */
final class BinaryTrees {
    private BinaryTrees() {
    }

    /** Position of {@code rank} in the binary tree over {@code n} nodes. */
    public static TreeLinks btree(int n, int rank) {
        if (n <= 0 || rank < 0 || rank >= n) {
            throw new JcclException(Result.INTERNAL_ERROR, "btree: rank " + rank + " out of 0.." + (n - 1));
        }
        int bit = 1;
        while (bit < n && (bit & rank) == 0) {
            bit <<= 1;
        }
        if (rank == 0) {
            return new TreeLinks(-1, -1, n > 1 ? bit >> 1 : -1, -1);
        }
        int up = (rank ^ bit) | (bit << 1);
        if (up >= n) {
            up = rank ^ bit;
        }
        int parentChildType = rank < up ? 0 : 1;
        int lowbit = bit >> 1;
        int d0 = lowbit == 0 ? -1 : rank - lowbit;
        int d1 = lowbit == 0 ? -1 : rank + lowbit;
        while (d1 >= n) {
            d1 = lowbit == 0 ? -1 : rank + lowbit;
            lowbit >>= 1;
        }
        return new TreeLinks(up, d0, d1, parentChildType);
    }

    /** Position of {@code rank} in tree {@code which} (0 or 1) of the double binary tree over {@code n} nodes. */
    public static TreeLinks dtree(int n, int rank, int which) {
        if (which == 0) {
            return btree(n, rank);
        }
        if (n % 2 == 1) {
            TreeLinks t = btree(n, (rank - 1 + n) % n);
            return new TreeLinks(shift(t.up(), n), shift(t.down0(), n), shift(t.down1(), n), t.parentChildType());
        }
        TreeLinks t = btree(n, n - 1 - rank);
        return new TreeLinks(mirror(t.up(), n), mirror(t.down0(), n), mirror(t.down1(), n), t.parentChildType());
    }

    private static int shift(int x, int n) {
        return x == -1 ? -1 : (x + 1) % n;
    }

    private static int mirror(int x, int n) {
        return x == -1 ? -1 : n - 1 - x;
    }
}
