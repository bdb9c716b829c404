package io.jccl.internal.topology.channels;

/**
 * One position in a binary tree over n nodes: the parent and up to two children (-1 = none), and whether this node is
 * its parent's first (0) or second (1) child.
 *
 * @param up              parent, -1 at the root
 * @param down0           first child, -1 when none
 * @param down1           second child, -1 when none
 * @param parentChildType 0 when this node is smaller than its parent (the parent's down0), 1 otherwise; -1 at the root
 *
 * <p>Immutable; the out-parameters of NCCL's ncclGetBtree.
 */
record TreeLinks(int up, int down0, int down1, int parentChildType) {
}
