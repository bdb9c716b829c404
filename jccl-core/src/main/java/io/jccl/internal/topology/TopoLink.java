package io.jccl.internal.topology;

/**
 * A directed link from one node to {@link #remNode()}. Its bandwidth is reserved and given back by the graph search
 * ({@link #reserve}), so it is mutable; every search restores it to the initial value.
 *
 * <p>Owned by the thread that builds and searches the topology (init only); mirrors NCCL's {@code ncclTopoLink}.
 */
public final class TopoLink {
    private final LinkType type;
    private final TopoNode remNode;
    private double bwGBps;

    TopoLink(LinkType type, TopoNode remNode, double bwGBps) {
        this.type = type;
        this.remNode = remNode;
        this.bwGBps = bwGBps;
    }

    public LinkType type() {
        return type;
    }

    public TopoNode remNode() {
        return remNode;
    }

    /** Bandwidth still available on this link (GB/s); equals the link's capacity outside a search. */
    public double bwGBps() {
        return bwGBps;
    }

    void addBw(double moreGBps) {
        bwGBps += moreGBps;
    }

    /** Takes {@code bwGBps} (negative to give it back), rounding as NCCL does. */
    public void reserve(double takeGBps) {
        bwGBps = TopoConstants.subRound(bwGBps, takeGBps);
    }

    @Override
    public String toString() {
        return type.ncclName() + "[" + TopoFormat.bw(bwGBps) + "]->" + remNode.label();
    }
}
