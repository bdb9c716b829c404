package io.jccl.internal.topology.channels;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.ArrayList;
import java.util.List;

/**
 * NCCL's tree for a GPU communicator whose ranks span hosts: inside each host the ranks form a chain in ring order,
 * and the chains' heads are joined by tree 0 or tree 1 of the double binary tree over the hosts ({@link BinaryTrees}).
 * A head's parent is the head of its host's parent; its children are the heads of its host's children and the next
 * rank of its own chain, so a rank has at most three children. Hosts are numbered in the order their first rank
 * appears in the ring, which keeps every rank's answer the same when every rank passes the same ring.
 *
 * <p>Stateless; mirrors the tree half of ncclTopoPostset (connectTrees) for one tree per channel parity, with the
 * chain of NCCL's TREE pattern (up and down links of a host on its first GPU).
 */
public final class ChainTrees {
    /** The most children a rank has: two hosts and the next rank of its chain (NCCL_MAX_TREE_ARITY). */
    public static final int MAX_CHILDREN = 3;

    private ChainTrees() {
    }

    /**
     * Rank {@code rank}'s links in tree {@code which} (0 or 1).
     *
     * @param order  every rank once, the ranks of each host together (the GPU ring across hosts)
     * @param hostOf hostOf[r]: any number naming rank r's host, equal for the ranks of one host
     * @return {parent, child, child, child}, -1 where there is none (the root has no parent)
     * @throws JcclException {@link Result#INTERNAL_ERROR} when {@code order} is not a permutation whose hosts are
     *                       contiguous
     */
    public static int[] links(int[] order, int[] hostOf, int rank, int which) {
        List<int[]> chains = chains(order, hostOf);
        int node = -1;
        int pos = -1;
        for (int h = 0; h < chains.size() && node < 0; h++) {
            for (int i = 0; i < chains.get(h).length; i++) {
                if (chains.get(h)[i] == rank) {
                    node = h;
                    pos = i;
                }
            }
        }
        if (node < 0) {
            throw new JcclException(Result.INTERNAL_ERROR, "tree: rank " + rank + " is not in the ring");
        }
        int[] chain = chains.get(node);
        int next = pos + 1 < chain.length ? chain[pos + 1] : -1;
        if (pos > 0) {
            return new int[] {chain[pos - 1], next, -1, -1};
        }
        TreeLinks t = BinaryTrees.dtree(chains.size(), node, which);
        return new int[] {head(chains, t.up()), head(chains, t.down0()), head(chains, t.down1()), next};
    }

    /** The ranks of each host in ring order, hosts in the order their first rank appears. */
    private static List<int[]> chains(int[] order, int[] hostOf) {
        List<int[]> chains = new ArrayList<>();
        boolean[] seen = new boolean[order.length];
        int start = 0;
        for (int i = 1; i <= order.length; i++) {
            int r = order[i - 1];
            if (r < 0 || r >= order.length || seen[r] || hostOf.length != order.length) {
                throw new JcclException(Result.INTERNAL_ERROR, "tree: ring " + java.util.Arrays.toString(order)
                        + " is not a permutation of the " + hostOf.length + " ranks");
            }
            seen[r] = true;
            if (i == order.length || hostOf[order[i]] != hostOf[r]) {
                chains.add(java.util.Arrays.copyOfRange(order, start, i));
                start = i;
            }
        }
        for (int a = 0; a < chains.size(); a++) {
            for (int b = a + 1; b < chains.size(); b++) {
                if (hostOf[chains.get(a)[0]] == hostOf[chains.get(b)[0]]) {
                    throw new JcclException(Result.INTERNAL_ERROR, "tree: the ring " + java.util.Arrays.toString(order)
                            + " visits a host twice; its ranks must be together");
                }
            }
        }
        return chains;
    }

    private static int head(List<int[]> chains, int node) {
        return node < 0 ? -1 : chains.get(node)[0];
    }
}
