package io.jccl.cuda;

/**
 * The allReduce algorithms of {@link GpuCommunicator}. {@link #AUTO} chooses by message size (see
 * {@link GpuOptions}); the others force one, for benchmarks and tests. The other collectives choose between LL
 * (small) and the ring (large) by {@link GpuOptions#llMaxBytes()}.
 */
public enum AllReduceAlgorithm {
    /**
     * Choose by size: LL, packed LL and LL128 (2 GPUs), push one-shot, pull one-shot (two-shot when in place),
     * two-shot, ring.
     */
    AUTO("auto"),
    /** Barrier-free one-shot with LL packets pushed to every peer; small messages (up to llMaxBytes). */
    LL("ll"),
    /**
     * LL with 12 data bytes per 16-byte line instead of 8: 75% of the link's bytes are data. Two GPUs only
     * (up to llPackedMaxBytes).
     */
    LL_PACKED("llpacked"),
    /**
     * LL with 128-byte lines of 120 data bytes and an 8-byte flag, written and polled a warp at a time: 94% of the
     * link's bytes are data, with LL's one-way latency. Two GPUs only (up to ll128MaxBytes), as NCCL's LL128 it relies
     * on NVLink delivering a warp's 128-byte line stores whole.
     */
    LL128("ll128"),
    /**
     * Every GPU writes its input into every peer's push area, one barrier, then reduces locally (up to pushMaxBytes).
     */
    PUSH("push"),
    /**
     * Every GPU reads every peer's input over NVLink; barriers before and after. Needs every buffer addressable from
     * every GPU (one process driving all GPUs); becomes two-shot when any rank runs in place.
     */
    ONE_SHOT("oneshot"),
    /** Reduce-scatter by peer loads, all-gather by peer stores; barriers before and after. One process only. */
    TWO_SHOT("twoshot"),
    /** NCCL-style ring, Simple protocol: per-channel FIFOs of 8 slots with head/tail step counters. */
    RING("ring"),
    /**
     * NCCL's tree, Simple protocol, over the ring's FIFOs: inside each host the ranks form a chain, and the chains
     * are joined by the double binary tree over the hosts (half the channels on each tree); each channel reduces up
     * its tree and sends the result down at once. Across hosts NCCL's cost model chooses it; on one host it runs
     * only when forced (one chain through every GPU).
     */
    TREE("tree");

    private final String shortName;

    AllReduceAlgorithm(String shortName) {
        this.shortName = shortName;
    }

    /** Lower-case name used in options and tables. */
    public String shortName() {
        return shortName;
    }

    /** Parses a short name ("ll", "oneshot", ...) or a constant name, ignoring case. */
    public static AllReduceAlgorithm fromName(String name) {
        for (AllReduceAlgorithm a : values()) {
            if (a.shortName.equalsIgnoreCase(name) || a.name().equalsIgnoreCase(name)) {
                return a;
            }
        }
        throw new io.jccl.JcclException(io.jccl.Result.INVALID_ARGUMENT, "unknown allReduce algorithm '" + name
                + "'; expected auto, ll, llpacked, ll128, push, oneshot, twoshot, ring or tree");
    }
}
