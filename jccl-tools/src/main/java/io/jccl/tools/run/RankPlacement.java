package io.jccl.tools.run;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which host runs which rank, and each rank's index among the ranks of its host. Ranks fill the hosts' slots in
 * hostfile order (Open MPI's default {@code --map-by slot}: host 0 takes ranks 0..slots-1, host 1 the next ones);
 * when there are more ranks than slots, placement starts again at the first host (oversubscription) instead of
 * failing. A value computed once by the launcher thread.
 *
 * @param hostOfRank     the host name of every rank
 * @param localRank      each rank's index on its host (LOCAL_RANK)
 * @param localWorldSize how many ranks share each rank's host (LOCAL_WORLD_SIZE)
 */
public record RankPlacement(List<String> hostOfRank, List<Integer> localRank, List<Integer> localWorldSize) {

    public RankPlacement {
        hostOfRank = List.copyOf(hostOfRank);
        localRank = List.copyOf(localRank);
        localWorldSize = List.copyOf(localWorldSize);
    }

    /** Places {@code nRanks} ranks on the hosts of {@code file}, slot by slot. */
    public static RankPlacement bySlot(Hostfile file, int nRanks) {
        if (nRanks < 1) {
            throw new IllegalArgumentException("the number of ranks must be at least 1, got " + nRanks);
        }
        List<String> hosts = new ArrayList<>(nRanks);
        outer:
        while (true) {
            for (Hostfile.Host h : file.hosts()) {
                for (int s = 0; s < h.slots(); s++) {
                    if (hosts.size() == nRanks) {
                        break outer;
                    }
                    hosts.add(h.name());
                }
            }
        }
        Map<String, Integer> seen = new HashMap<>();
        List<Integer> local = new ArrayList<>(nRanks);
        for (String h : hosts) {
            local.add(seen.merge(h, 1, Integer::sum) - 1);
        }
        List<Integer> size = hosts.stream().map(seen::get).toList();
        return new RankPlacement(hosts, local, size);
    }

    /** Number of ranks. */
    public int size() {
        return hostOfRank.size();
    }

    /** The distinct hosts in use, in order of their first rank, with their rank counts. */
    public Map<String, Integer> ranksPerHost() {
        Map<String, Integer> m = new LinkedHashMap<>();
        hostOfRank.forEach(h -> m.merge(h, 1, Integer::sum));
        return m;
    }
}
