package io.jccl.internal.comm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.internal.algorithm.Ring;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.tuning.HostSelector;
import io.jccl.internal.transport.Transport;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The INFO lines NCCL users look for after a communicator is created, in NCCL's shapes: the communicator line with
 * hosts and local ranks, the hosts (GRAPH), each channel's ring order and neighbours, the transport to each peer,
 * the channel and slot counts, and which algorithm allReduce uses at which size (TUNING). Nothing is formatted unless
 * the subsystem is enabled.
 *
 * <p>Owned by: the initialising thread. Mirrors: the INFO output of NCCL's initTransportsRank and ncclTopoPrint.
 */
final class InitLog {
    private static final long[] SIZES = {4L << 10, 64L << 10, 1L << 20, 16L << 20, 256L << 20};

    private InitLog() {
    }

    static void print(CommRuntime rt, PeerInfo[] peers, Ring[] rings, Transport[] byPeer) {
        int rank = rt.rank();
        int n = rt.nRanks();
        CommShape shape = rt.shape();
        if (Log.enabled(Log.Level.INFO, Subsys.INIT)) {
            Log.info(Subsys.INIT, rank, "comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d",
                    rt.id(), rank, n, shape.nNodes(), shape.localRanks(), localRank(peers, rank));
            for (int c = 0; c < rings.length; c++) {
                Log.info(Subsys.INIT, rank, "Channel %02d/%02d : %s", c, rings.length, order(rings[c]));
            }
            for (int c = 0; c < rings.length && n > 1; c++) {
                Log.info(Subsys.INIT, rank, "Ring %02d : %d -> %d -> %d", c, rings[c].prev(), rank, rings[c].next());
            }
            if (n > 1) {
                Log.info(Subsys.INIT, rank, "Connected all rings; transports to peers: %s", transports(byPeer, rank));
            }
            Log.info(Subsys.INIT, rank, "%d coll channels, %d p2p channels, slots %d KiB (ring) %d KiB (p2p)",
                    shape.nChannels(), shape.nChannels(), shape.stepBytes() >> 10, shape.p2pStepBytes() >> 10);
        }
        if (Log.enabled(Log.Level.INFO, Subsys.GRAPH)) {
            Map<String, StringBuilder> hosts = new LinkedHashMap<>();
            for (PeerInfo p : peers) {
                StringBuilder b = hosts.computeIfAbsent(p.hostName(), k -> new StringBuilder());
                b.append(b.isEmpty() ? "" : ",").append(p.rank());
            }
            hosts.forEach((host, ranks) -> Log.info(Subsys.GRAPH, rank, "Host %s: ranks %s", host, ranks));
        }
        if (Log.enabled(Log.Level.INFO, Subsys.TUNING)) {
            StringBuilder b = new StringBuilder();
            for (long size : SIZES) {
                long choice = rt.selector().choose(Collective.ALL_REDUCE, size / 4, size, false);
                b.append(b.isEmpty() ? "" : ", ").append(size >= 1 << 20 ? (size >> 20) + " MiB" : (size >> 10)
                        + " KiB")
                        .append(' ').append(HostSelector.kindOf(choice)).append('/')
                        .append(HostSelector.channelsOf(choice));
            }
            Log.info(Subsys.TUNING, rank, "AllReduce algorithm/channels by size (%s, sum): %s",
                    DataType.FLOAT32.ncclName(), b);
        }
    }

    /** This rank's index among the ranks of its host (what a GPU build would use as its device). */
    static int localRank(PeerInfo[] peers, int rank) {
        int local = 0;
        for (int r = 0; r < rank; r++) {
            if (peers[r].hostHash() == peers[rank].hostHash()) {
                local++;
            }
        }
        return local;
    }

    private static String order(Ring ring) {
        StringBuilder b = new StringBuilder();
        for (int r : ring.userRanks()) {
            b.append(b.isEmpty() ? "" : " ").append(r);
        }
        return b.toString();
    }

    private static String transports(Transport[] byPeer, int rank) {
        StringBuilder b = new StringBuilder();
        int shown = 0;
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (int p = 0; p < byPeer.length; p++) {
            if (p == rank || byPeer[p] == null) {
                continue;
            }
            counts.merge(byPeer[p].name(), 1, Integer::sum);
            if (shown++ < 16) {
                b.append(b.isEmpty() ? "" : " ").append(p).append(':').append(byPeer[p].name());
            }
        }
        if (shown > 16) {
            b.append(" ... (").append(counts).append(')');
        }
        return b.toString();
    }
}
