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
            boolean inRing = false;
            boolean inTree = false;
            prev[c] = next[c] = up[c] = down[c] = -1;
            for (int i = 0; i < local; i++) {
                if (ring.rankAt(c, i) == rank) {
                    recv[c] = ring.rankAt(c, 0);
                    send[c] = ring.rankAt(c, local - 1);
                    prev[c] = i == 0 ? -1 : ring.rankAt(c, i - 1);
                    next[c] = i == local - 1 ? -1 : ring.rankAt(c, i + 1);
                    inRing = true;
                }
                if (tree.rankAt(c, i) == rank) {
                    toParent[c] = tree.rankAt(c, 0);
                    toChild0[c] = tree.rankAt(c, child0Index);
                    toChild1[c] = tree.rankAt(c, child1Index);
                    up[c] = i == 0 ? -1 : tree.rankAt(c, i - 1);
                    down[c] = i == local - 1 ? -1 : tree.rankAt(c, i + 1);
                    inTree = true;
                }
            }
            if (!inRing || !inTree) {
                throw new JcclException(Result.INTERNAL_ERROR, "rank " + rank + " is missing from channel " + c
                        + " of its"
                        + " node's " + (inRing ? "tree" : "ring") + " graph");
            }
        }
        return new TopoRanks(recv, send, prev, next, toParent, toChild0, toChild1, up, down);
    }
}
