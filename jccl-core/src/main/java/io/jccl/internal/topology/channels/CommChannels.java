package io.jccl.internal.topology.channels;

/**
 * The communicator's channels after joining all nodes: for every channel, every rank's ring neighbours and tree links.
 * Every rank computes the same object from the allgathered {@link TopoRanks}; a rank reads its own row.
 *
 * @param nRanks    communicator size
 * @param nChannels channels (rings/trees) in use
 * @param ringPrev  ringPrev[c][r]: the rank r receives from in ring c
 * @param ringNext  ringNext[c][r]: the rank r sends to in ring c
 * @param treeUp    treeUp[c][r]: r's parent in tree c (-1 at the root)
 * @param treeDown  treeDown[c][r][k]: r's k-th child in tree c (-1 = none), k &lt; 3
 * @param treeDepth approximate tree depth (ranks per node - 1 + log2(nodes))
 *
 * <p>Immutable by convention (arrays are not copied; do not modify); the ring/tree fields of NCCL's ncclChannel for
 * every rank.
 */
public record CommChannels(int nRanks, int nChannels, int[][] ringPrev, int[][] ringNext, int[][] treeUp,
                           int[][][] treeDown, int treeDepth) {

    /** Ring order of channel c starting at {@code fromRank}. */
    public int[] ringOrder(int c, int fromRank) {
        int[] order = new int[nRanks];
        int x = fromRank;
        for (int i = 0; i < nRanks; i++) {
            order[i] = x;
            x = ringNext[c][x];
        }
        return order;
    }

    /** The root of tree c (the rank without parent), or -1 if there is none. */
    public int treeRoot(int c) {
        for (int r = 0; r < nRanks; r++) {
            if (treeUp[c][r] == -1) {
                return r;
            }
        }
        return -1;
    }
}
