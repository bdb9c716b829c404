package io.jccl.internal.algorithm;

import java.util.Arrays;

/**
 * This rank's place in one tree of one channel (NCCL's {@code ncclTree}): its parent, its children, and the connector
 * channel the tree's links use (tree 1 of a channel has connectors of its own, so that its steps never interleave
 * with tree 0's on a shared FIFO while both pipelines run at once).
 *
 * @param up          parent rank, -1 at the root
 * @param down        child ranks (0 to 3: the next rank of the host's chain and up to two child hosts' leaders)
 * @param connChannel index of the connectors the tree's links use
 *
 * <p>Owned by: immutable, computed at init. Mirrors: ncclTree in channel.h.
 */
public record Tree(int up, int[] down, int connChannel) {
    public Tree {
        down = down.clone();
    }

    /** A tree from the planned links: {@code downs} may contain -1 for missing children. */
    public static Tree of(int up, int[] downs, int connChannel) {
        return new Tree(up, Arrays.stream(downs).filter(d -> d >= 0).toArray(), connChannel);
    }

    public boolean isRoot() {
        return up < 0;
    }

    public int nDown() {
        return down.length;
    }

    @Override
    public String toString() {
        return "up " + up + " down " + Arrays.toString(down) + " conn " + connChannel;
    }
}
