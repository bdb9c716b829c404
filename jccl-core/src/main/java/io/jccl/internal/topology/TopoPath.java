package io.jccl.internal.topology;

import java.util.List;

/**
 * The route from one node to another: the links taken in order, the bottleneck bandwidth (min over the links) and
 * the path class (max over the hops, with NCCL's PXB/PHB/NVB upgrades). A path with no links and type {@link
 * PathType#DIS} means "not reachable"; a node's path to itself has no links and type LOC.
 *
 * @param links  links from the source node towards the destination, in order
 * @param bwGBps bottleneck bandwidth
 * @param type   path class
 *
 * <p>Immutable; mirrors NCCL's ncclTopoLinkList.
 */
public record TopoPath(List<TopoLink> links, double bwGBps, PathType type) {
    /** The unreachable path. */
    public static final TopoPath DISCONNECTED = new TopoPath(List.of(), 0.0, PathType.DIS);

    public TopoPath {
        links = List.copyOf(links);
    }

    /** Number of hops ({@code count} in NCCL). */
    public int hops() {
        return links.size();
    }

    public TopoPath withType(PathType newType) {
        return new TopoPath(links, bwGBps, newType);
    }
}
