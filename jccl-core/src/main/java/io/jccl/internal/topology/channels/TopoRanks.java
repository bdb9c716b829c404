package io.jccl.internal.topology.channels;

/**
 * What one rank contributes, per channel, to joining the per-node graphs into communicator-wide rings and trees
 * (NCCL's {@code ncclTopoRanks}, allgathered after the search). Arrays are indexed by channel and owned by this record
 * once built; callers must not modify them.
 *
 * @param ringRecv     first GPU (rank) of the node's ring for the channel: receives from the previous node
 * @param ringSend     last GPU of the node's ring: sends to the next node
 * @param ringPrev     this rank's predecessor inside the node (-1 when it is the first)
 * @param ringNext     this rank's successor inside the node (-1 when it is the last)
 * @param treeToParent the node's GPU that talks to the parent node
 * @param treeToChild0 the node's GPU that talks to the first child node
 * @param treeToChild1 the node's GPU that talks to the second child node
 * @param treeUp       this rank's parent in the node's chain (-1 for the first GPU)
 * @param treeDown     this rank's child in the node's chain (-1 for the last GPU)
 *
 * <p>Built by one thread, then only read (postset works on copies).
 */
public record TopoRanks(int[] ringRecv, int[] ringSend, int[] ringPrev, int[] ringNext, int[] treeToParent,
                        int[] treeToChild0, int[] treeToChild1, int[] treeUp, int[] treeDown) {

    /** A deep copy (postset rearranges its own copies, never the caller's). */
    TopoRanks copy() {
        return new TopoRanks(ringRecv.clone(), ringSend.clone(), ringPrev.clone(), ringNext.clone(),
                treeToParent.clone(), treeToChild0.clone(), treeToChild1.clone(), treeUp.clone(), treeDown.clone());
    }

    /** Swaps the ring entries of channels a and b (rail alternation on odd nodes). */
    void swapRings(int a, int b) {
        swap(ringRecv, a, b);
        swap(ringSend, a, b);
        swap(ringPrev, a, b);
        swap(ringNext, a, b);
    }

    private static void swap(int[] x, int a, int b) {
        int t = x[a];
        x[a] = x[b];
        x[b] = t;
    }
}
