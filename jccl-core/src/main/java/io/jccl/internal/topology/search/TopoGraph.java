package io.jccl.internal.topology.search;

import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoConstants;

import java.util.Arrays;

/**
 * One searched graph of a node (ring or tree pattern): its channels, each an order of the node's GPUs (by rank) and,
 * across nodes, the NET it enters from and the NET it leaves by, plus the per-channel bandwidths and path types the
 * search settled on. Mutable while the search runs; afterwards treat it as read-only.
 *
 * <p>Owned by the initialising thread; mirrors NCCL's {@code ncclTopoGraph}.
 */
public final class TopoGraph {
    public static final int ID_RING = 0;
    public static final int ID_TREE = 1;

    final int id;
    GraphPattern pattern;
    final int nGpus;
    int crossNic;
    int minChannels;
    int maxChannels;
    int nChannels;
    double bwIntra;
    double bwInter;
    double latencyInter;
    PathType typeIntra = PathType.LOC;
    PathType typeInter = PathType.PIX;
    boolean sameChannels;
    int nHops;
    /** Recursion steps the search spent (0 for graphs not searched). */
    long searchSteps;
    /** intra[c * nGpus + i] = rank of the i-th GPU of channel c. */
    final int[] intra;
    /** inter[2c] = id of the NET channel c enters by, inter[2c+1] = the NET it leaves by. */
    final long[] inter;

    public TopoGraph(int id, GraphPattern pattern, int nGpus, int minChannels, int maxChannels) {
        this.id = id;
        this.pattern = pattern;
        this.nGpus = Math.max(1, nGpus);
        this.minChannels = minChannels;
        this.maxChannels = maxChannels;
        this.intra = new int[TopoConstants.MAXCHANNELS * this.nGpus];
        this.inter = new long[TopoConstants.MAXCHANNELS * 2];
    }

    /**
     * A graph that is not searched but given: every channel visits {@code ranks} in order (used for host-only nodes,
     * where there are no GPUs to search, and for tests).
     */
    public static TopoGraph ordered(int id, GraphPattern pattern, int[] ranks, int nChannels, double bwGBps,
                                    PathType type) {
        TopoGraph g = new TopoGraph(id, pattern, ranks.length, nChannels, nChannels);
        for (int c = 0; c < nChannels; c++) {
            System.arraycopy(ranks, 0, g.intra, c * ranks.length, ranks.length);
        }
        g.nChannels = nChannels;
        g.bwIntra = g.bwInter = bwGBps;
        g.typeIntra = g.typeInter = type;
        g.sameChannels = true;
        return g;
    }

    /**
     * Like {@link #ordered}, but channel c starts its visit at {@code ranks[c mod n]} (the order rotated by c), so that
     * on a node of several host ranks each channel enters and leaves the node through different ranks and the network
     * work spreads over them, as NCCL's searched channels use different GPUs. On one node a rotated order is the
     * same ring.
     */
    public static TopoGraph rotated(int id, GraphPattern pattern, int[] ranks, int nChannels, double bwGBps,
                                    PathType type) {
        TopoGraph g = ordered(id, pattern, ranks, nChannels, bwGBps, type);
        int n = ranks.length;
        for (int c = 0; c < nChannels; c++) {
            for (int i = 0; i < n; i++) {
                g.intra[c * n + i] = ranks[(i + c) % n];
            }
        }
        g.sameChannels = n == 1 || nChannels == 1;
        return g;
    }

    /** Overwrites everything with {@code o}'s state (same GPU count). */
    void copyFrom(TopoGraph o) {
        pattern = o.pattern;
        crossNic = o.crossNic;
        minChannels = o.minChannels;
        maxChannels = o.maxChannels;
        nChannels = o.nChannels;
        bwIntra = o.bwIntra;
        bwInter = o.bwInter;
        latencyInter = o.latencyInter;
        typeIntra = o.typeIntra;
        typeInter = o.typeInter;
        sameChannels = o.sameChannels;
        nHops = o.nHops;
        searchSteps = o.searchSteps;
        System.arraycopy(o.intra, 0, intra, 0, intra.length);
        System.arraycopy(o.inter, 0, inter, 0, inter.length);
    }

    TopoGraph copy() {
        TopoGraph g = new TopoGraph(id, pattern, nGpus, minChannels, maxChannels);
        g.copyFrom(this);
        return g;
    }

    public int id() {
        return id;
    }

    public GraphPattern pattern() {
        return pattern;
    }

    public int nGpus() {
        return nGpus;
    }

    public int crossNic() {
        return crossNic;
    }

    public int minChannels() {
        return minChannels;
    }

    public int maxChannels() {
        return maxChannels;
    }

    public int nChannels() {
        return nChannels;
    }

    public double bwIntra() {
        return bwIntra;
    }

    public double bwInter() {
        return bwInter;
    }

    public double latencyInter() {
        return latencyInter;
    }

    public PathType typeIntra() {
        return typeIntra;
    }

    public PathType typeInter() {
        return typeInter;
    }

    public boolean sameChannels() {
        return sameChannels;
    }

    public int nHops() {
        return nHops;
    }

    /** Recursion steps the search spent on this graph (bounded by the global and per-search budgets). */
    public long searchSteps() {
        return searchSteps;
    }

    /** Ranks of channel c's GPUs in order. */
    public int[] channelRanks(int c) {
        return Arrays.copyOfRange(intra, c * nGpus, (c + 1) * nGpus);
    }

    public int rankAt(int c, int i) {
        return intra[c * nGpus + i];
    }

    /** Id of the NET channel c enters by (meaningful only for inter-node graphs). */
    public long netIn(int c) {
        return inter[2 * c];
    }

    /** Id of the NET channel c leaves by. */
    public long netOut(int c) {
        return inter[2 * c + 1];
    }

    /** The same graph with every rank shifted by {@code offset} (for another node with the same topology). */
    public TopoGraph withRankOffset(int offset) {
        TopoGraph g = copy();
        for (int i = 0; i < nChannels * nGpus; i++) {
            g.intra[i] += offset;
        }
        return g;
    }

    /** The summary exchanged between ranks ({@link GraphInfo}). */
    public GraphInfo info() {
        return new GraphInfo(pattern, nChannels, sameChannels, bwIntra, bwInter, typeIntra, typeInter, crossNic,
                latencyInter);
    }

    /** A copy with the cross-rank agreement applied (channel counts only ever shrink; channels are kept). */
    public TopoGraph agreed(GraphInfo merged) {
        TopoGraph g = copy();
        g.nChannels = Math.min(nChannels, merged.nChannels());
        g.sameChannels = merged.sameChannels();
        g.bwIntra = merged.bwIntraGBps();
        g.bwInter = merged.bwInterGBps();
        g.typeIntra = merged.typeIntra();
        g.typeInter = merged.typeInter();
        g.crossNic = merged.crossNic();
        g.latencyInter = merged.latencyInterUs();
        return g;
    }

    @Override
    public String toString() {
        return "Pattern " + pattern.ncclId() + ", crossNic " + crossNic + ", nChannels " + nChannels + ", bw "
                + String.format(java.util.Locale.ROOT, "%f/%f", bwIntra, bwInter) + ", type " + typeIntra + "/"
                + typeInter + ", sameChannels " + (sameChannels ? 1 : 0);
    }
}
