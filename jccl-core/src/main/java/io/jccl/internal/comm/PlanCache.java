package io.jccl.internal.comm;

import io.jccl.internal.topology.setup.CommPlan;
import io.jccl.internal.topology.setup.HostChannels;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The channel plans of this process's communicators, computed once per communicator instead of once per rank: every
 * rank plans the same channels from the same allgathered host hashes ({@link HostChannels#plan} is a pure function
 * of them), so the ranks of one communicator in this process (thread ranks of {@code initAll} or {@code initRanks})
 * share one plan. The first rank computes it while the others with the same inputs wait for it; the plan is
 * immutable by convention. At most {@link #MAX_PLANS} plans are kept.
 *
 * <p>Owned by: the initialising threads of every communicator of the process. Mirrors: nothing in NCCL, where each
 * rank runs in its own process or computes its plan on its own.
 */
final class PlanCache {
    /** Plans kept; more clear the cache (the plans of communicators being created are then computed again). */
    private static final int MAX_PLANS = 8;
    private static final ConcurrentHashMap<Key, CommPlan> PLANS = new ConcurrentHashMap<>();

    private PlanCache() {
    }

    /** {@link HostChannels#plan}{@code (hostOfRank, nChannels)}, shared with the other ranks of this process. */
    static CommPlan plan(long[] hostOfRank, int nChannels) {
        if (hostOfRank.length < 2) {
            return HostChannels.plan(hostOfRank, nChannels);
        }
        Key k = new Key(hostOfRank.clone(), nChannels);
        CommPlan p = PLANS.get(k);
        if (p != null) {
            return p;
        }
        if (PLANS.size() >= MAX_PLANS) {
            PLANS.clear();
        }
        return PLANS.computeIfAbsent(k, x -> HostChannels.plan(x.hosts, x.nChannels));
    }

    /** The inputs of a plan. */
    private record Key(long[] hosts, int nChannels) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.nChannels == nChannels && Arrays.equals(k.hosts, hosts);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(hosts) + nChannels;
        }

        @Override
        public String toString() {
            return "Key[" + hosts.length + " ranks, " + nChannels + " channels]";
        }
    }
}
