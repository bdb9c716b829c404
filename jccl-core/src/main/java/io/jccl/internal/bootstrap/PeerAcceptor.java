package io.jccl.internal.bootstrap;

import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.Tls;
import io.jccl.internal.bootstrap.Goodbye.Departure;
import io.jccl.internal.debug.Log;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;

/**
 * The incoming side of one rank's bootstrap network: accepts connections on the rank's listen socket, authenticates
 * each peer (see {@link Handshake}; under TLS after the TLS handshake), then queues the peer's frames in the mailbox
 * until the connection ends, and reports goodbyes and vanished connections to the {@link Departures}. At most
 * {@link #MAX_PENDING} connections may be in their handshake at once; more are closed at once.
 *
 * <p>Owned by: one virtual accept thread and one virtual reader thread per incoming connection.
 * Mirrors: bootstrap.cc's listen socket and unexpected-connection handling.
 */
final class PeerAcceptor {
    /** Incoming connections allowed to be in their handshake at once. */
    private static final int MAX_PENDING = 256;

    private final int rank;
    private final int nRanks;
    private final AuthKeys keys;
    private final Tls tls;
    private final ServerSocket listen;
    private final Mailbox mailbox;
    private final Departures departures;
    private final BooleanSupplier closed;
    private final List<Socket> inSockets = new CopyOnWriteArrayList<>();
    private final Semaphore pending = new Semaphore(MAX_PENDING);

    PeerAcceptor(int rank, int nRanks, AuthKeys keys, Tls tls, ServerSocket listen, Mailbox mailbox,
            Departures departures, BooleanSupplier closed) {
        this.rank = rank;
        this.nRanks = nRanks;
        this.keys = keys;
        this.tls = tls;
        this.listen = listen;
        this.mailbox = mailbox;
        this.departures = departures;
        this.closed = closed;
    }

    /** Starts the accept thread. */
    void start() {
        Thread.ofVirtual().name("jccl-bootstrap-accept-r" + rank).start(this::acceptLoop);
    }

    /** Open incoming connections. */
    int count() {
        return inSockets.size();
    }

    /** Closes the listen socket and every incoming connection. */
    void close() {
        try {
            listen.close();
        } catch (IOException ignored) {
            // closing
        }
        for (Socket s : inSockets) {
            PeerLinks.closeQuietly(s);
        }
    }

    private void acceptLoop() {
        while (!closed.getAsBoolean()) {
            try {
                Socket s = listen.accept();
                if (!pending.tryAcquire()) {
                    Log.warn(rank, "bootstrap: %d handshakes in progress; dropped a connection from %s", MAX_PENDING,
                            s.getRemoteSocketAddress());
                    PeerLinks.closeQuietly(s);
                    continue;
                }
                inSockets.add(s);
                Thread.ofVirtual().name("jccl-bootstrap-reader-r" + rank).start(() -> readLoop(s));
            } catch (IOException e) {
                if (!closed.getAsBoolean()) {
                    Log.warn(rank, "bootstrap accept failed: %s", e.getMessage());
                }
                return;
            }
        }
    }

    /** Authenticates an incoming connection, then queues its frames until it ends. */
    private void readLoop(Socket s) {
        int from = -1;
        boolean released = false;
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout(BootstrapRoot.HANDSHAKE_MS);
            if (tls != null) {
                s = tls.wrap(s, false, "a peer at " + s.getRemoteSocketAddress());
            }
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 1 << 16));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 1024));
            byte[] challenge = AuthKeys.nonce();
            Frames.write(out, Handshake.TAG_PEER_CHALLENGE, challenge);
            Frames.Frame hello = Frames.read(in, Handshake.MAX_HANDSHAKE_BYTES);
            Handshake.PeerHello h;
            try {
                if (hello.tag() != Handshake.TAG_PEER_HELLO) {
                    throw new Handshake.Rejected("not a JCCL peer hello");
                }
                h = Handshake.openPeerHello(keys, challenge, hello.payload(), rank, nRanks);
            } catch (Handshake.Rejected e) {
                Log.warn(rank, "bootstrap: rejected a connection from %s: %s", s.getRemoteSocketAddress(),
                        e.getMessage());
                Frames.write(out, Handshake.TAG_PEER_REJECT, e.getMessage().getBytes(StandardCharsets.UTF_8));
                s.close();
                return;
            }
            Frames.write(out, Handshake.TAG_PEER_OK, Handshake.signPeerOk(keys, h.nonce(), challenge));
            from = h.from();
            s.setSoTimeout(0);
            pending.release();
            released = true;
            while (true) {
                Frames.Frame f = Frames.read(in);
                if (f.tag() == Goodbye.TAG) {
                    departures.depart(from, Goodbye.decode(f.payload()));
                } else {
                    mailbox.put(from, f.tag(), f.payload());
                }
            }
        } catch (SocketTimeoutException e) {
            Log.warn(rank, "bootstrap: dropped %s: no hello within %d ms", s.getRemoteSocketAddress(),
                    BootstrapRoot.HANDSHAKE_MS);
            PeerLinks.closeQuietly(s);
        } catch (IOException e) {
            PeerLinks.closeQuietly(s);
            if (from >= 0 && !closed.getAsBoolean()) {
                departures.depart(from, new Goodbye(Departure.VANISHED, "its connection ended without a goodbye ("
                        + (Frames.isEof(e) ? "end of stream" : e.getMessage()) + ")"));
            }
        } finally {
            inSockets.remove(s);
            if (!released) {
                pending.release();
            }
        }
    }
}
