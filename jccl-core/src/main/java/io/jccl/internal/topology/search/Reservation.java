package io.jccl.internal.topology.search;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.CpuArch;
import io.jccl.internal.topology.CpuVendor;
import io.jccl.internal.topology.LinkType;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoConstants;
import io.jccl.internal.topology.TopoLink;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoPath;
import io.jccl.internal.topology.TopoSystem;

/**
 * Reserves (and gives back) a channel's bandwidth along a path. A path is usable only if every link on it still has
 * the bandwidth; otherwise what was already taken is returned and the path is refused. Two hardware quirks cost extra:
 * P2P through an Intel root complex takes 6/5 of the bandwidth on its PCI links, and writes into a pre-Ampere GPU from
 * a non-GPU take 1/8 of the bandwidth on the reverse link too (a POWER CPU over NVLink: all of it).
 *
 * <p>Used by the search on the initialising thread; mirrors ncclTopoFollowPath / followPath (src/graph/search.cc).
 */
final class Reservation {
    private Reservation() {
    }

    /**
     * Follows the path from node (t1,i1) to (t2,i2) taking the graph's intra- or inter-node bandwidth times
     * {@code mult} (1 to take, -1 to give back). Returns the destination, or null when the path is missing, too far
     * (worse than the graph's allowed type) or lacks bandwidth. With {@code t1 == null} it just returns the
     * destination.
     */
    static TopoNode follow(TopoSystem system, TopoGraph graph, NodeType t1, int i1, NodeType t2, int i2, int mult) {
        TopoNode dst = system.node(t2, i2);
        if (t1 == null) {
            return dst;
        }
        TopoNode src = system.node(t1, i1);
        TopoPath path = src.pathTo(t2, i2);
        if (!src.hasPaths(t2)) {
            throw new JcclException(Result.INTERNAL_ERROR, "no path computed from " + src.label() + " to "
                    + dst.label());
        }
        if (path.hops() == 0) {
            return dst;
        }
        boolean intra = (t1 == NodeType.GPU || t1 == NodeType.NVS) && (t2 == NodeType.GPU || t2 == NodeType.NVS);
        double bw = intra ? graph.bwIntra : graph.bwInter;
        PathType allowed = intra ? graph.typeIntra : graph.typeInter;
        if (path.type() == PathType.DIS) {
            return null;
        }
        if (mult == 1 && path.type().ordinal() > allowed.ordinal()) {
            return null;
        }
        if (mult == 1 && graph.pattern.isTree() && dst.pathTo(t1, i1).type().ordinal() > allowed.ordinal()) {
            return null; // trees send both ways: the reverse path must be close enough too
        }
        bw *= mult;
        int steps = take(path, src, path.hops(), bw);
        if (steps < path.hops()) {
            take(path, src, steps, -bw);
            return null;
        }
        graph.nHops += mult * path.hops();
        return dst;
    }

    /** Takes bw on the first maxSteps links; returns how many links had enough (== maxSteps on success). */
    private static int take(TopoPath path, TopoNode start, int maxSteps, double bw) {
        double pciBw = bw;
        for (TopoLink l : path.links()) {
            TopoNode n = l.remNode();
            if (n.type() == NodeType.CPU && path.type() == PathType.PHB && start.type() == NodeType.GPU
                    && n.cpuArch() == CpuArch.X86 && n.cpuVendor() == CpuVendor.INTEL) {
                pciBw = TopoConstants.intelP2pOverhead(bw);
            }
        }
        TopoNode node = start;
        for (int step = 0; step < maxSteps; step++) {
            TopoLink link = path.links().get(step);
            TopoNode rem = link.remNode();
            double fwBw = link.type() == LinkType.PCI ? pciBw : bw;
            double revBw = 0;
            TopoLink rev = null;
            if (rem.type() == NodeType.GPU && rem.gpuSm() < 80 && start.type() != NodeType.GPU) {
                rev = rem.linkTo(node, link.type());
                revBw += fwBw / 8;
            }
            if (rem.type() == NodeType.CPU && rem.cpuArch() == CpuArch.POWER && link.type() == LinkType.NVL) {
                rev = rem.linkTo(node, link.type());
                revBw += fwBw;
            }
            if (link.bwGBps() < fwBw || (revBw != 0 && rev != null && rev.bwGBps() < revBw)) {
                return step;
            }
            link.reserve(fwBw);
            if (revBw != 0 && rev != null) {
                rev.reserve(revBw);
            }
            node = rem;
        }
        return maxSteps;
    }

    /** Takes (mult 1) or gives back (-1) bw on every NET port of the same NIC ASIC and port number as {@code net}. */
    static void reserveNet(TopoSystem system, TopoNode net, double bw, int mult) {
        for (TopoNode n : system.nodes(NodeType.NET)) {
            if (n.netAsic() == net.netAsic() && n.netPort() == net.netPort()) {
                n.reserveNetBw(mult * bw);
            }
        }
    }
}
