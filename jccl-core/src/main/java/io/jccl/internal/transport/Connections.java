package io.jccl.internal.transport;

import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;

import java.util.ArrayList;
import java.util.List;

/**
 * Every connector of one communicator, by channel and peer, and the handshake that creates missing ones: all
 * receiving sides are prepared and announced first (non-blocking bootstrap sends), then all sending sides connect,
 * then the receiving sides accept. Because no rank waits before it has announced everything it offers, two ranks
 * that need each other's connectors at the same time cannot deadlock.
 *
 * <p>Owned by: the thread launching work on the communicator (one at a time). Mirrors: NCCL's
 * ncclTransportP2pSetup (connectSend/connectRecv bitmaps, setup then connect), with runtime (lazy) connection.
 */
public final class Connections {
    private static final int TAG_CONNECT = 0x4a43_5000;

    private final int rank;
    private final int nRanks;
    private final PeerExchange bootstrap;
    private final TransportSelector selector;
    private final SendConn[][] send;
    private final RecvConn[][] recv;

    /** Chooses the transport for a peer (p2p, shm or net, as NCCL does by priority). */
    public interface TransportSelector {
        Transport forPeer(int peer);
    }

    /** A connector some work needs. */
    public record Need(int channel, int peer, boolean isSend, int stepBytes) {
    }

    public Connections(int rank, int nRanks, int maxChannels, PeerExchange bootstrap, TransportSelector selector) {
        this.rank = rank;
        this.nRanks = nRanks;
        this.bootstrap = bootstrap;
        this.selector = selector;
        this.send = new SendConn[maxChannels][nRanks];
        this.recv = new RecvConn[maxChannels][nRanks];
    }

    public SendConn send(int channel, int peer) {
        return send[channel][peer];
    }

    public RecvConn recv(int channel, int peer) {
        return recv[channel][peer];
    }

    public boolean has(Need n) {
        return n.isSend ? send[n.channel][n.peer] != null : recv[n.channel][n.peer] != null;
    }

    /** Creates every connector in {@code needs} that does not exist yet; all ranks involved must call it. */
    public void connect(List<Need> needs) {
        Setup s = begin(needs);
        s.connectSends();
        s.finish();
    }

    /**
     * Phase 1 of a connection setup: prepares and announces every missing receiving side. Callers driving several
     * communicators from one thread run phase 1 on all of them before phase 2 on any.
     */
    public Setup begin(List<Need> needs) {
        Setup s = new Setup(needs);
        for (Need n : needs) {
            if (!n.isSend && recv[n.channel][n.peer] == null && !contains(s.recvs, n)) {
                Transport.PendingRecv p = selector.forPeer(n.peer).setupRecv(n.peer, n.channel, n.stepBytes);
                bootstrap.send(n.peer, TAG_CONNECT + n.channel, p.info());
                s.recvs.add(n);
                s.pending.add(p);
            }
        }
        return s;
    }

    /** A connection setup in progress. */
    public final class Setup {
        private final List<Need> needs;
        private final List<Need> recvs = new ArrayList<>();
        private final List<Transport.PendingRecv> pending = new ArrayList<>();

        private Setup(List<Need> needs) {
            this.needs = needs;
        }

        /** Phase 2: connects every missing sending side with the offer its receiver announced. */
        public void connectSends() {
            List<Need> sends = new ArrayList<>();
            for (Need n : needs) {
                if (n.isSend && send[n.channel][n.peer] == null && !contains(sends, n)) {
                    byte[] info = bootstrap.recv(n.peer, TAG_CONNECT + n.channel, "the connection offer for channel "
                            + n.channel + " (the peer must make the matching call)");
                    Transport t = selector.forPeer(n.peer);
                    send[n.channel][n.peer] = t.connectSend(n.peer, n.channel, info);
                    sends.add(n);
                    Log.info(Subsys.INIT, rank, "Channel %02d/0 : %d -> %d via %s", n.channel, rank, n.peer, t.name());
                }
            }
        }

        /** Phase 3: waits for the senders of every prepared receiving side. */
        public void finish() {
            for (int i = 0; i < recvs.size(); i++) {
                Need n = recvs.get(i);
                recv[n.channel][n.peer] = pending.get(i).complete();
            }
        }
    }

    private static boolean contains(List<Need> list, Need n) {
        for (Need m : list) {
            if (m.channel == n.channel && m.peer == n.peer && m.isSend == n.isSend) {
                return true;
            }
        }
        return false;
    }

    /**
     * Forgets every connector (suspend: their transports were quiesced and released, their memory goes next); the
     * next work that needs one connects it anew.
     */
    public void clear() {
        for (int c = 0; c < send.length; c++) {
            java.util.Arrays.fill(send[c], null);
            java.util.Arrays.fill(recv[c], null);
        }
    }

    /** The peers this rank has at least one connector with, on any channel (both sides of a connector agree). */
    public int[] peers() {
        boolean[] any = new boolean[nRanks];
        for (int c = 0; c < send.length; c++) {
            for (int p = 0; p < nRanks; p++) {
                any[p] |= send[c][p] != null || recv[c][p] != null;
            }
        }
        int k = 0;
        int[] out = new int[nRanks];
        for (int p = 0; p < nRanks; p++) {
            if (any[p]) {
                out[k++] = p;
            }
        }
        return java.util.Arrays.copyOf(out, k);
    }

    /** How many connectors this rank holds (each direction of each channel and peer counts once). */
    public int count() {
        int k = 0;
        for (int c = 0; c < send.length; c++) {
            for (int p = 0; p < nRanks; p++) {
                k += (send[c][p] != null ? 1 : 0) + (recv[c][p] != null ? 1 : 0);
            }
        }
        return k;
    }

    public int nRanks() {
        return nRanks;
    }
}
