package io.jccl.internal.topology.setup;

import io.jccl.internal.topology.channels.CommChannels;
import io.jccl.internal.topology.search.GraphInfo;
import io.jccl.internal.topology.search.GraphPattern;

import java.util.List;

/**
 * Everything topology decides for a communicator: the per-node graphs, the graph summaries all ranks agreed on, the
 * channel count and the joined rings and trees.
 *
 * @param nRanks         communicator size
 * @param nNodes         number of nodes (hosts)
 * @param nodeOfRank     node index of each rank
 * @param nodes          per-node plans (index = node)
 * @param ring           merged ring graph summary (its nChannels = the channels searched, before duplication)
 * @param tree           merged tree graph summary
 * @param maxTreePattern the largest tree pattern id over the nodes (TREE means "all NIC traffic on one GPU")
 * @param channels       the communicator's channels (after duplication and NCCL_MIN/MAX_NCHANNELS)
 *
 * <p>Immutable by convention.
 */
public record CommPlan(int nRanks, int nNodes, int[] nodeOfRank, List<NodePlan> nodes, GraphInfo ring, GraphInfo tree,
                       GraphPattern maxTreePattern, CommChannels channels) {

    /** Ranks on the most populated node. */
    public int maxLocalRanks() {
        int[] count = new int[nNodes];
        int max = 0;
        for (int n : nodeOfRank) {
            max = Math.max(max, ++count[n]);
        }
        return max;
    }

    /** Ranks on the least populated node. */
    public int minLocalRanks() {
        int[] count = new int[nNodes];
        for (int n : nodeOfRank) {
            count[n]++;
        }
        int min = Integer.MAX_VALUE;
        for (int c : count) {
            min = Math.min(min, c);
        }
        return min;
    }
}
