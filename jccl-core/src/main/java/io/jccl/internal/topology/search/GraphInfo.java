package io.jccl.internal.topology.search;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.PathType;

import java.util.List;

/**
 * What each rank tells the others about one of its graphs, so that all ranks settle on the same channel count,
 * bandwidths and path types: the smallest channel count and bandwidths, the worst path types, and any cross-NIC use.
 * The communicator allgathers one GraphInfo per graph and calls {@link #merge}.
 *
 * @param pattern      search pattern
 * @param nChannels    channels found
 * @param sameChannels all channels use the same GPU order
 * @param bwIntraGBps  per-channel bandwidth inside the node
 * @param bwInterGBps  per-channel bandwidth across nodes
 * @param typeIntra    worst path type inside the node
 * @param typeInter    worst GPU↔NIC path type
 * @param crossNic     0 no cross-NIC rings, 1 allowed, 2 alternating rails
 * @param latencyInterUs extra network latency of the NICs used (NET {@code latency} attribute, µs)
 *
 * <p>Immutable; mirrors the graphInfo part of NCCL's AllGather3 payload and its min/max merge (src/init.cc).
 */
public record GraphInfo(GraphPattern pattern, int nChannels, boolean sameChannels, double bwIntraGBps,
                        double bwInterGBps, PathType typeIntra, PathType typeInter, int crossNic,
                        double latencyInterUs) {

    /** Size of the fixed binary encoding ({@link #toBytes}). */
    public static final int BYTES = 4 * 5 + 8 * 3;

    /** The agreement of all ranks: min channels and bandwidths, sameChannels only if all, max types and crossNic. */
    public static GraphInfo merge(List<GraphInfo> all) {
        if (all.isEmpty()) {
            throw new JcclException(Result.INTERNAL_ERROR, "GraphInfo.merge needs at least one rank's graph info");
        }
        GraphInfo r = all.get(0);
        for (GraphInfo g : all.subList(1, all.size())) {
            r = new GraphInfo(r.pattern, Math.min(r.nChannels, g.nChannels), r.sameChannels && g.sameChannels,
                    Math.min(r.bwIntraGBps, g.bwIntraGBps), Math.min(r.bwInterGBps, g.bwInterGBps),
                    PathType.worse(r.typeIntra, g.typeIntra), PathType.worse(r.typeInter, g.typeInter),
                    Math.max(r.crossNic, g.crossNic), Math.max(r.latencyInterUs, g.latencyInterUs));
        }
        return r;
    }

    /** A fixed-size little-endian encoding for the bootstrap allgather. */
    public byte[] toBytes() {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(BYTES).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putInt(pattern.ncclId()).putInt(nChannels).putInt(sameChannels ? 1 : 0).putDouble(bwIntraGBps)
                .putDouble(bwInterGBps).putInt(typeIntra.ncclId() | (typeInter.ncclId() << 16)).putInt(crossNic)
                        .putDouble(latencyInterUs);
        return b.array();
    }

    public static GraphInfo fromBytes(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new JcclException(Result.INTERNAL_ERROR, "graph info of " + bytes.length + " bytes, expected "
                    + BYTES);
        }
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        GraphPattern p = GraphPattern.fromId(b.getInt());
        int nc = b.getInt();
        boolean same = b.getInt() != 0;
        double intra = b.getDouble();
        double inter = b.getDouble();
        int types = b.getInt();
        return new GraphInfo(p, nc, same, intra, inter, PathType.fromId(types & 0xffff), PathType.fromId(types >>> 16),
                b.getInt(), b.getDouble());
    }
}
