package io.jccl.internal.comm;

import io.jccl.internal.algorithm.Ring;
import io.jccl.internal.algorithm.Tree;
import io.jccl.internal.topology.TopoConstants;
import io.jccl.internal.topology.channels.CommChannels;
import io.jccl.internal.topology.setup.CommPlan;
import io.jccl.internal.topology.setup.HostChannels;

/**
 * The rings and trees this rank runs, per channel, read from the communicator's channel plan
 * ({@link HostChannels}): ring c is the plan's ring c; tree 0 of channel c is the plan's tree of channel c, tree 1 the
 * plan's tree of channel {@code planned + c}, whose links use connectors {@code nChannels + c} of their own.
 *
 * @param rings  rings[c], ranks listed from rank 0's position (the identity ring on one host)
 * @param trees  trees[c] = {tree 0, tree 1} of channel c
 * @param plan   the plan every rank computed alike
 *
 * <p>Owned by: immutable, computed at init on the initialising thread. Mirrors: the ring/tree fields NCCL's
 * ncclTopoPostset and setupChannel fill into comm->channels[c].
 */
record ChannelLayout(Ring[] rings, Tree[][] trees, CommPlan plan) {

    /** Connector channels a communicator of {@code nChannels} needs (trees 1 have their own). */
    public static int connectorChannels(int nChannels) {
        return 2 * nChannels;
    }

    /** Plans the channels from every rank's host hash and picks this rank's part. */
    public static ChannelLayout of(long[] hostOfRank, int rank, int nChannels) {
        int planned = Math.min(nChannels, TopoConstants.MAXCHANNELS / 2);
        CommPlan plan = PlanCache.plan(hostOfRank, planned);
        CommChannels ch = plan.channels();
        Ring[] rings = new Ring[nChannels];
        Tree[][] trees = new Tree[nChannels][];
        for (int c = 0; c < nChannels; c++) {
            int p = c % planned;
            int[] order = ch.ringOrder(p, 0);
            int index = 0;
            while (order[index] != rank) {
                index++;
            }
            rings[c] = new Ring(order, index);
            trees[c] = new Tree[] {
                Tree.of(ch.treeUp()[p][rank], ch.treeDown()[p][rank], c),
                Tree.of(ch.treeUp()[planned + p][rank], ch.treeDown()[planned + p][rank], nChannels + c)};
        }
        return new ChannelLayout(rings, trees, plan);
    }
}
