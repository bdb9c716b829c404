package io.jccl.cuda.internal.enqueue;

/**
 * How one collective call runs: the kernel family, its grid (channels for the ring), the ring chunk and the
 * algorithm flags. Mutable and reused call after call by its communicator, so planning allocates nothing.
 *
 * <p>Thread: the communicator's calling thread. Mirrors NCCL's ncclTaskColl after ncclGetAlgoInfo.
 */
final class Plan {
    KernelFamily family;
    int blocks;
    long chunkBytes;
    int flags;
    /** A pull kernel reading the peers' windows (NCCL's symmetric kernels), for every collective but allReduce too. */
    boolean window;
    /** A pull kernel running reduceScatter, allGather or broadcast (no one-shot or two-shot form). */
    boolean pullOthers;

    public KernelFamily family() {
        return family;
    }

    /** Blocks in the grid (channels for the ring, two per channel for the tree). */
    public int blocks() {
        return blocks;
    }

    /** Channels: the blocks, or half of them for the tree. */
    public int channels() {
        return (flags & KernelArgs.FLAG_TREE) != 0 ? blocks / 2 : blocks;
    }

    /** Ring chunk in bytes (0 for the other families). */
    public long chunkBytes() {
        return chunkBytes;
    }

    /** KernelArgs flags the plan adds (two-shot). */
    public int flags() {
        return flags;
    }

    /**
     * The algorithm as benchmarks print it: ll, llpacked, push, oneshot, twoshot, ring, p2p; on windows sym-oneshot,
     * sym-twoshot and sym-pull (reduceScatter, allGather, broadcast); across hosts ring-ll for the LL
     * ring; tree for NCCL's tree allReduce.
     */
    public String algorithmName() {
        if (family == KernelFamily.PULL) {
            String pull = pullOthers ? "pull" : (flags & KernelArgs.FLAG_TWO_SHOT) != 0 ? "twoshot" : "oneshot";
            return window ? "sym-" + pull : pull;
        }
        if ((flags & KernelArgs.FLAG_NET_LL) != 0) {
            return "ring-ll";   // a constant: launches record the name and allocate nothing
        }
        if ((flags & KernelArgs.FLAG_TREE) != 0) {
            return "tree";
        }
        return family == KernelFamily.LL_PACKED ? "llpacked" : family.shortName();
    }

    @Override
    public String toString() {
        return algorithmName() + " x" + blocks + (chunkBytes > 0 ? " chunk " + chunkBytes : "");
    }
}
