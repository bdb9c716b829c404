package io.jccl.internal.topology.setup;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.search.GraphPattern;
import io.jccl.internal.topology.search.TopoGraph;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Channel planning of a host-memory communicator: ranks are grouped by host hash (hosts numbered by their first rank),
 * each host visits its ranks in rank order (the intra-host "search" of CPU ranks; channel c starts at the host's
 * c-th rank), and {@link TopoSetup#join} joins the hosts: every ring crosses the network once per host and direction,
 * however the ranks are interleaved across hosts, and the trees are NCCL's double binary tree over hosts with a chain
 * inside each host.
 *
 * <p>The result has {@code 2 * nChannels} channels, as NCCL's postset doubles the searched ones: channel c
 * ({@code c < nChannels}) carries ring c and tree 0, channel {@code nChannels + c} the same ring and tree 1.
 * Every rank computes the same plan from the same allgathered host hashes.
 *
 * <p>Stateless; runs on the initialising thread. Mirrors the CPU-only case of NCCL's topology phase of
 * initTransportsRank (ncclTopoCompute over one node, ncclTopoPreset, ncclTopoPostset).
 */
public final class HostChannels {
    private HostChannels() {
    }

    /**
     * @param hostOfRank host hash of every rank
     * @param nChannels  channels the communicator's workers run (1..32)
     */
    public static CommPlan plan(long[] hostOfRank, int nChannels) {
        int nRanks = hostOfRank.length;
        if (nRanks < 1 || nChannels < 1 || nChannels > TopoSetup.RING_MAX_CHANNELS) {
            throw new JcclException(Result.INTERNAL_ERROR, "host channel plan for " + nRanks + " ranks and " + nChannels
                    + " channels");
        }
        Map<Long, List<Integer>> byHost = new LinkedHashMap<>();
        for (int r = 0; r < nRanks; r++) {
            byHost.computeIfAbsent(hostOfRank[r], h -> new ArrayList<>()).add(r);
        }
        int[] nodeOfRank = new int[nRanks];
        List<NodePlan> nodes = new ArrayList<>();
        int n = 0;
        for (List<Integer> ranks : byHost.values()) {
            int[] order = ranks.stream().mapToInt(Integer::intValue).toArray();
            for (int r : order) {
                nodeOfRank[r] = n;
            }
            nodes.add(new NodePlan(null,
                    TopoGraph.rotated(TopoGraph.ID_RING, GraphPattern.RING, order, nChannels, 1.0, PathType.PHB),
                    TopoGraph.rotated(TopoGraph.ID_TREE, GraphPattern.TREE, order, nChannels, 1.0, PathType.PHB)));
            n++;
        }
        CommPlan plan = TopoSetup.join(nodeOfRank, nodes, 0, 0);
        if (plan.channels().nChannels() != 2 * nChannels) {
            throw new JcclException(Result.INTERNAL_ERROR, "host channel plan made " + plan.channels().nChannels()
                    + " channels, expected " + 2 * nChannels + " for nodes " + Arrays.toString(nodeOfRank));
        }
        return plan;
    }
}
