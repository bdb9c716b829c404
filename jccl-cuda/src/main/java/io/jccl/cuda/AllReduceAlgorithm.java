package io.jccl.cuda;

/**
 * The allReduce kernels of {@link GpuClique}. {@link #AUTO} lets the clique choose by message size (see
 * {@link CliqueOptions}); the others force one, for benchmarks and tests.
 */
public enum AllReduceAlgorithm {
    /** Choose by size: LL, push one-shot, pull one-shot (two-shot when in place), two-shot, ring. */
    AUTO("auto", null),
    /** Barrier-free one-shot with LL packets pushed to every peer; small messages (up to llMaxBytes). */
    LL("ll", "allreduce_ll"),
    /** Every GPU writes its input into every peer's push area, one barrier, then reduces locally. */
    PUSH("push", "allreduce_push"),
    /** Every GPU reads every peer's input over NVLink; barriers before and after. Not in place. */
    ONE_SHOT("oneshot", "allreduce_oneshot"),
    /** Reduce-scatter by peer loads, all-gather by peer stores; barriers before and after. In place allowed. */
    TWO_SHOT("twoshot", "allreduce_twoshot"),
    /** NCCL-style ring, Simple protocol: per-channel FIFOs of 8 slots with head/tail step counters. */
    RING("ring", "allreduce_ring");

    private final String shortName;
    private final String module;

    AllReduceAlgorithm(String shortName, String module) {
        this.shortName = shortName;
        this.module = module;
    }

    /** Lower-case name used in kernel names, options and benchmark tables. */
    public String shortName() {
        return shortName;
    }

    /** The PTX resource (without .ptx) holding this algorithm's kernels; null for AUTO. */
    public String module() {
        return module;
    }

    /** Parses a short name ("ll", "oneshot", ...) or a constant name, ignoring case. */
    public static AllReduceAlgorithm fromName(String name) {
        for (AllReduceAlgorithm a : values()) {
            if (a.shortName.equalsIgnoreCase(name) || a.name().equalsIgnoreCase(name)) {
                return a;
            }
        }
        throw new io.jccl.JcclException(io.jccl.Result.INVALID_ARGUMENT, "unknown allReduce algorithm '" + name
                + "'; expected auto, ll, push, oneshot, twoshot or ring");
    }
}
