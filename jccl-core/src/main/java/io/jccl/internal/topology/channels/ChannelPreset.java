package io.jccl.internal.topology.channels;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.search.GraphPattern;
import io.jccl.internal.topology.search.TopoGraph;

/**
 * Per-rank, local part of channel setup: from the node's ring and tree graphs, where this rank sits in each channel's
 * ring (first/last GPU of the node, neighbours inside the node) and tree (the chain inside the node, and which GPUs
 * face the parent and child nodes: all the first GPU for TREE; the second GPU for the children of a SPLIT_TREE; the
 * second GPU for one child of a BALANCED_TREE).
 *
 * <p>Stateless; mirrors ncclTopoPreset (src/graph/connect.cc).
 */
public final class ChannelPreset {
    private ChannelPreset() {
    }

    /**
     * @param rank      this rank
     * @param nChannels channels the communicator uses (min of ring and tree channels)
     * @param ring      this node's ring graph
     * @param tree      this node's tree graph
     */
    public static TopoRanks preset(int rank, int nChannels, TopoGraph ring, TopoGraph tree) {
        return preset(rank, nChannels, ring, tree, Positions.of(ring, nChannels), Positions.of(tree, nChannels));
    }

    /**
     * As above with the positions of the ranks in {@code ring} and {@code tree} computed once, so presetting every
     * rank of a node costs O(channels · ranks) instead of O(channels · ranks²).
     */
    public static TopoRanks preset(int rank, int nChannels, TopoGraph ring, TopoGraph tree, Positions ringPos,
                                   Positions treePos) {
        int local = ring.nGpus();
        int[] recv = new int[nChannels];
        int[] send = new int[nChannels];
        int[] prev = new int[nChannels];
        int[] next = new int[nChannels];
        int[] toParent = new int[nChannels];
        int[] toChild0 = new int[nChannels];
        int[] toChild1 = new int[nChannels];
        int[] up = new int[nChannels];
        int[] down = new int[nChannels];
        int child0Index = tree.pattern() == GraphPattern.TREE ? 0 : 1;
        int child1Index = tree.pattern() == GraphPattern.SPLIT_TREE ? 1 : 0;
        if (local == 1) {
            child0Index = child1Index = 0;
        }
        for (int c = 0; c < nChannels; c++) {
            prev[c] = next[c] = up[c] = down[c] = -1;
            int i = ringPos.of(c, rank);
            if (i >= 0) {
                recv[c] = ring.rankAt(c, 0);
                send[c] = ring.rankAt(c, local - 1);
                prev[c] = i == 0 ? -1 : ring.rankAt(c, i - 1);
                next[c] = i == local - 1 ? -1 : ring.rankAt(c, i + 1);
            }
            int j = treePos.of(c, rank);
            if (j >= 0) {
                toParent[c] = tree.rankAt(c, 0);
                toChild0[c] = tree.rankAt(c, child0Index);
                toChild1[c] = tree.rankAt(c, child1Index);
                up[c] = j == 0 ? -1 : tree.rankAt(c, j - 1);
                down[c] = j == local - 1 ? -1 : tree.rankAt(c, j + 1);
            }
            if (i < 0 || j < 0) {
                throw new JcclException(Result.INTERNAL_ERROR, "rank " + rank + " is missing from channel " + c
                        + " of its node's " + (i >= 0 ? "tree" : "ring") + " graph");
            }
        }
        return new TopoRanks(recv, send, prev, next, toParent, toChild0, toChild1, up, down);
    }

    /** Where each rank sits in each channel of a graph (the last position when a rank appears twice). */
    public static final class Positions {
        private final java.util.List<java.util.Map<Integer, Integer>> byChannel = new java.util.ArrayList<>();

        private Positions() {
        }

        /** The positions of the ranks of {@code g}'s first {@code nChannels} channels. */
        public static Positions of(TopoGraph g, int nChannels) {
            Positions p = new Positions();
            for (int c = 0; c < nChannels; c++) {
                java.util.Map<Integer, Integer> m = new java.util.HashMap<>();
                for (int i = 0; i < g.nGpus(); i++) {
                    m.put(g.rankAt(c, i), i);
                }
                p.byChannel.add(m);
            }
            return p;
        }

        int of(int c, int rank) {
            Integer i = byChannel.get(c).get(rank);
            return i == null ? -1 : i;
        }
    }
}
