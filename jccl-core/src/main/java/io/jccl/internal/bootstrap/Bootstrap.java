package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.Tls;
import io.jccl.internal.bootstrap.Goodbye.Departure;
import io.jccl.internal.debug.Log;
import io.jccl.internal.param.Params;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.transport.PeerExchange;
import io.jccl.internal.transport.net.socket.NetInterfaces;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One rank's bootstrap network (NCCL's {@code bootstrapInit} and {@code bootstrapSend/Recv/AllGather}): a listening
 * socket, an authenticated hello to the root that returns the ring successor's address, a ring allGather of every
 * rank's listen address, and from then on tagged messages to any peer over one cached, authenticated connection per
 * direction, opened on first use (to a rank of this process: straight into its mailbox, see {@link LocalPeers}).
 * {@link #allGather} takes ceil(log2 n) steps. Every wait has a deadline and notices a broken communicator. How
 * each peer left (an orderly close, a failure it announced, or a connection that just ended) is reported to
 * {@link #onDeparture} listeners.
 *
 * <p>Owned by: the communicator's threads (send/recv are thread-safe); one virtual reader thread per incoming
 * connection and one virtual accept thread. Mirrors: bootstrap.cc.
 */
public final class Bootstrap implements PeerExchange, AutoCloseable {
    /** Tag of the address allGather during init. */
    private static final int TAG_RING_ADDR = 0x4a43_4311;
    /** Tag of {@link #allGather}. */
    public static final int TAG_ALLGATHER = 0x4a43_4312;
    /** Incoming connections allowed to be in their handshake at once. */
    private static final int MAX_PENDING = 256;

    /** Told how a peer left, once per peer, on a reader thread. */
    @FunctionalInterface
    public interface DepartureListener {
        void departed(int peer, Departure kind, String reason);
    }

    private final int rank;
    private final int nRanks;
    private final AuthKeys keys;
    private final Tls tls;
    private final long timeoutNs;
    private final ServerSocket listen;
    private final Mailbox mailbox;
    private final InetSocketAddress[] peers;
    private final PeerLinks links;
    private final LocalPeers local;
    private InetSocketAddress me;
    private final List<Socket> inSockets = new CopyOnWriteArrayList<>();
    private final Semaphore pending = new Semaphore(MAX_PENDING);
    private final Goodbye[] departed;
    private final List<DepartureListener> departureListeners = new CopyOnWriteArrayList<>();
    private volatile CommHealth health;
    private final List<Runnable> beforeClose = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private Bootstrap(int rank, int nRanks, AuthKeys keys, long timeoutNs, ServerSocket listen) {
        this.rank = rank;
        this.nRanks = nRanks;
        this.keys = keys;
        this.tls = Tls.forComm(keys);
        this.timeoutNs = timeoutNs;
        this.listen = listen;
        this.mailbox = new Mailbox(rank, nRanks);
        this.peers = new InetSocketAddress[nRanks];
        this.links = new PeerLinks(rank, keys, tls, peers);
        this.local = new LocalPeers(this, keys, peers, Params.BOOTSTRAP_LOCAL.get() != 0);
        this.departed = new Goodbye[nRanks];
    }

    /**
     * Joins the bootstrap network of {@code id}: says hello to the root, learns the ring successor, and gathers every
     * rank's listen address. Blocks until all ranks joined or the deadline passes.
     */
    public static Bootstrap init(UniqueId id, int rank, int nRanks, long timeoutNs) {
        InetSocketAddress root = id.rootAddress();
        NetInterfaces.IfAddress ifa = NetInterfaces.choose(root.getAddress().isLoopbackAddress());
        ServerSocket ss;
        try {
            ss = new ServerSocket();
            ss.bind(new InetSocketAddress(ifa.address(), 0), 1024);
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "rank " + rank + ": cannot open bootstrap listen socket on "
                    + ifa + ": " + e.getMessage(), e);
        }
        Bootstrap b = new Bootstrap(rank, nRanks, AuthKeys.of(id), timeoutNs, ss);
        Log.info(Subsys.BOOTSTRAP, rank, "Bootstrap: using %s, listening on port %d", ifa, ss.getLocalPort());
        Thread.ofVirtual().name("jccl-bootstrap-accept-r" + rank).start(b::acceptLoop);
        try {
            InetSocketAddress me = new InetSocketAddress(ifa.address(), ss.getLocalPort());
            b.me = me;
            b.local.register(me);
            InetSocketAddress[] ahead = new RootHelloClient(b.keys, rank, nRanks, timeoutNs).hello(root, me, b.links);
            for (int k = 0; k < ahead.length; k++) {
                b.peers[(int) ((rank + (1L << k)) % nRanks)] = ahead[k];
            }
            b.peers[rank] = me;
            b.gatherAddresses();
            return b;
        } catch (RuntimeException e) {
            b.close();
            throw e;
        }
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int nRanks() {
        return nRanks;
    }

    /** The keys of this communicator (for data connections and child communicators). */
    public AuthKeys keys() {
        return keys;
    }

    /** This communicator's TLS ({@code JCCL_TLS}), or null when off: the net transport's sockets use it too. */
    public Tls tls() {
        return tls;
    }

    /** Where {@code peer}'s bootstrap listens (known for every rank after init). */
    public InetSocketAddress address(int peer) {
        checkPeer(peer);
        return peers[peer];
    }

    /** Lets waits stop early when the communicator fails. */
    public void attach(CommHealth h) {
        this.health = h;
        h.onFailure(mailbox::wakeAll);
    }

    /** True once {@link #close()} began. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Runs {@code r} when this bootstrap closes, before the goodbyes go out (e.g. to let notices still being sent
     * reach the peers ahead of the goodbye that follows them on the same connection).
     */
    public void beforeClose(Runnable r) {
        beforeClose.add(r);
    }

    /** Calls {@code l} for every peer departure, including those that already happened. */
    public void onDeparture(DepartureListener l) {
        departureListeners.add(l);
        for (int p = 0; p < nRanks; p++) {
            Goodbye g;
            synchronized (departed) {
                g = departed[p];
            }
            if (g != null) {
                l.departed(p, g.kind(), g.reason());
            }
        }
    }

    /**
     * Every rank's listen address in ceil(log2 n) steps: at distance d = 1, 2, 4, … a rank sends the addresses it holds
     * (its own and those of the ranks just behind it) to rank + d, whose address the root gave it, and receives those
     * of rank - d and the ranks behind that one. NCCL's bootstrap passes them around the ring in n-1 steps.
     */
    private void gatherAddresses() {
        int held = 1;
        for (int d = 1; held < nRanks; d *= 2) {
            int m = Math.min(d, nRanks - held);
            int to = (rank + d) % nRanks;
            int from = (rank - d + nRanks) % nRanks;
            ByteBuffer out = ByteBuffer.allocate(4 + m * (4 + 1 + 16 + 2));
            out.putInt(m);
            for (int j = 0; j < m; j++) {
                int idx = (rank - j + nRanks) % nRanks;
                byte[] ip = peers[idx].getAddress().getAddress();
                out.putInt(idx).put((byte) ip.length).put(ip).putShort((short) peers[idx].getPort());
            }
            send(to, TAG_RING_ADDR, java.util.Arrays.copyOf(out.array(), out.position()));
            byte[] got = recv(from, TAG_RING_ADDR, "bootstrap address allGather");
            try {
                DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(got));
                if (in.readInt() != m) {
                    throw new JcclException(Result.INTERNAL_ERROR, "bootstrap address allGather: rank " + from
                            + " sent a wrong number of addresses");
                }
                for (int j = 0; j < m; j++) {
                    int idx = in.readInt();
                    if (idx != (from - j + nRanks) % nRanks) {
                        throw new JcclException(Result.INTERNAL_ERROR, "bootstrap address allGather out of order: "
                                + "got rank " + idx + " from rank " + from);
                    }
                    peers[idx] = Frames.readAddress(in);
                }
            } catch (IOException e) {
                throw new JcclException(Result.INTERNAL_ERROR, "bad address in bootstrap allGather from rank " + from,
                        e);
            }
            held += m;
        }
    }

    /** Sends a tagged message to {@code peer} (asynchronous to the peer: it is queued there until received). */
    @Override
    public void send(int peer, int tag, byte[] payload) {
        send(peer, tag, payload, health);
    }

    /**
     * Sends even when the communicator is broken (shrink and split talk over a failed communicator's bootstrap);
     * fails only when the peer cannot be reached.
     */
    public void sendAny(int peer, int tag, byte[] payload) {
        checkPeer(peer);
        Goodbye g;
        synchronized (departed) {
            g = departed[peer];
        }
        if (g != null) {
            throw new JcclException(Result.REMOTE_ERROR, "rank " + rank + ": rank " + peer
                    + " has left the communicator ("
                    + (g.kind() == Departure.ORDERLY ? "it closed it" : g.reason()) + ")");
        }
        send(peer, tag, payload, null);
    }

    private void send(int peer, int tag, byte[] payload, CommHealth h) {
        checkPeer(peer);
        Bootstrap near = local.get(peer);
        if (near != null) {
            if (!near.deliver(rank, tag, payload)) {
                throw new JcclException(Result.REMOTE_ERROR, "rank " + rank + ": bootstrap send to rank " + peer
                        + " failed: it closed its bootstrap (rank " + peer + " exited or failed?)");
            }
            return;
        }
        DataOutputStream out = links.get(peer, System.nanoTime() + timeoutNs, h);
        try {
            synchronized (out) {
                Frames.write(out, tag, payload);
            }
        } catch (IOException e) {
            links.drop(peer, out);
            throw new JcclException(Result.REMOTE_ERROR, "rank " + rank + ": bootstrap send to rank " + peer
                    + " failed: " + e.getMessage() + " (rank " + peer + " exited or failed?)", e);
        }
    }

    /** Also delivers every message with {@code tag} to {@code listener} as it arrives (on a reader thread). */
    public void listen(int tag, java.util.function.BiConsumer<Integer, byte[]> listener) {
        mailbox.listen(tag, listener, false);
    }

    /** Delivers every message with {@code tag} to {@code listener} only (never queued: nobody {@link #recv}s it). */
    public void consume(int tag, java.util.function.BiConsumer<Integer, byte[]> listener) {
        mailbox.listen(tag, listener, true);
    }

    /**
     * Best-effort send that never waits long: used for failure notices and heartbeats. Returns false if the peer
     * could not be reached within {@code timeoutMs}.
     */
    public boolean trySend(int peer, int tag, byte[] payload, long timeoutMs) {
        if (closed || peer < 0 || peer >= nRanks) {
            return false;
        }
        Bootstrap near = local.get(peer);
        if (near != null) {
            return near.deliver(rank, tag, payload);
        }
        DataOutputStream out = links.tryGet(peer, timeoutMs);
        if (out == null) {
            return false;
        }
        try {
            synchronized (out) {
                Frames.write(out, tag, payload);
            }
            return true;
        } catch (IOException e) {
            links.drop(peer, out);
            return false;
        }
    }

    /** Receives the oldest message with {@code tag} from {@code peer}, waiting up to the deadline. */
    @Override
    public byte[] recv(int peer, int tag, String what) {
        checkPeer(peer);
        return mailbox.take(peer, tag, timeoutNs, health, what);
    }

    /** As {@link #recv}, but a broken communicator does not end the wait (the peer leaving or the deadline do). */
    public byte[] recvAny(int peer, int tag, String what) {
        checkPeer(peer);
        return mailbox.take(peer, tag, timeoutNs, null, what);
    }

    /**
     * Every rank's {@code mine}, indexed by rank, in ceil(log2 n) steps (Bruck's allGather: at distance d = 1, 2, 4,
     * … a rank sends the blocks it holds to rank - d and receives rank + d's), so each rank talks to about log2(n)
     * peers and a thousand ranks need 10 steps instead of the ring's 999. NCCL's bootstrap uses the ring.
     */
    @Override
    public byte[][] allGather(byte[] mine) {
        byte[][] all = new byte[nRanks][];
        all[rank] = mine;
        int held = 1;
        for (int d = 1; held < nRanks; d *= 2) {
            int m = Math.min(d, nRanks - held);
            int to = (rank - d + nRanks) % nRanks;
            int from = (rank + d) % nRanks;
            send(to, TAG_ALLGATHER, packBlocks(all, rank, m));
            byte[] got = recv(from, TAG_ALLGATHER, "bootstrap allGather step at distance " + d);
            unpackBlocks(got, all, from, m);
            held += m;
        }
        return all;
    }

    /** Blocks {@code first} .. {@code first + m - 1} (mod n) of {@code all}, each with its length. */
    private byte[] packBlocks(byte[][] all, int first, int m) {
        int size = 4;
        for (int i = 0; i < m; i++) {
            size += 4 + all[(first + i) % nRanks].length;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putInt(m);
        for (int i = 0; i < m; i++) {
            byte[] x = all[(first + i) % nRanks];
            b.putInt(x.length).put(x);
        }
        return b.array();
    }

    private void unpackBlocks(byte[] got, byte[][] all, int first, int m) {
        try {
            ByteBuffer b = ByteBuffer.wrap(got);
            if (b.getInt() != m) {
                throw new JcclException(Result.INTERNAL_ERROR, "rank " + rank + ": bootstrap allGather step from rank "
                        + first + " carries a wrong number of blocks (ranks made different bootstrap calls?)");
            }
            for (int i = 0; i < m; i++) {
                byte[] x = new byte[b.getInt()];
                b.get(x);
                all[(first + i) % nRanks] = x;
            }
        } catch (java.nio.BufferUnderflowException | NegativeArraySizeException e) {
            throw new JcclException(Result.INTERNAL_ERROR, "rank " + rank + ": malformed bootstrap allGather step from "
                    + "rank " + first, e);
        }
    }

    /** Returns when every rank has called it. */
    @Override
    public void barrier() {
        allGather(new byte[0]);
    }

    private void acceptLoop() {
        while (!closed) {
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
                if (!closed) {
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
                    Goodbye g = Goodbye.decode(f.payload());
                    depart(from, g);
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
            if (from >= 0 && !closed) {
                depart(from, new Goodbye(Departure.VANISHED, "its connection ended without a goodbye ("
                        + (Frames.isEof(e) ? "end of stream" : e.getMessage()) + ")"));
            }
        } finally {
            inSockets.remove(s);
            if (!released) {
                pending.release();
            }
        }
    }

    /**
     * A frame from {@code from}, a rank of this process (see {@link LocalPeers}), handled as a reader thread handles
     * one from a socket. Returns false when this rank's bootstrap is closed, as a write to its socket would fail.
     */
    boolean deliver(int from, int tag, byte[] payload) {
        if (closed) {
            return false;
        }
        if (tag == Goodbye.TAG) {
            depart(from, Goodbye.decode(payload));
        } else {
            mailbox.put(from, tag, payload.clone());
        }
        return true;
    }

    /** Open bootstrap sockets of this rank: its listener, outgoing and incoming connections (for the init log). */
    public int socketCount() {
        return 1 + links.openCount() + inSockets.size();
    }

    /** Peers of this process this rank talks to in memory, without a socket. */
    public int localPeerCount() {
        return local.count();
    }

    /** Records how {@code peer} left (the first report wins) and tells waits and listeners. */
    private void depart(int peer, Goodbye g) {
        synchronized (departed) {
            if (departed[peer] != null) {
                return;
            }
            departed[peer] = g;
        }
        mailbox.peerClosed(peer, g.kind() == Departure.ORDERLY ? "it closed the communicator" : g.reason());
        for (DepartureListener l : departureListeners) {
            try {
                l.departed(peer, g.kind(), g.reason());
            } catch (RuntimeException e) {
                Log.warn(rank, "bootstrap: departure listener failed: %s", e);
            }
        }
    }

    private void checkPeer(int peer) {
        if (peer < 0 || peer >= nRanks) {
            throw new JcclException(Result.INVALID_ARGUMENT, "peer " + peer + " out of range [0, " + nRanks + ")");
        }
    }

    /**
     * Tells every connected peer goodbye (an orderly close, or the failure in effect), then closes every socket.
     * Waits end with an error. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        for (Runnable r : beforeClose) {
            try {
                r.run();
            } catch (RuntimeException ignored) {
                // closing goes on whatever a hook does
            }
        }
        closed = true;
        mailbox.close();
        CommHealth h = health;
        JcclException f = h == null ? null : h.failure();
        Goodbye g = f == null ? new Goodbye(Departure.ORDERLY, "closed")
                : new Goodbye(Departure.FAILED, h.rootCause(rank));
        local.unregister(me);
        byte[] bye = g.encode();
        for (Bootstrap b : local.linked()) {
            b.deliver(rank, Goodbye.TAG, bye);
        }
        links.closeAll(g, 200);
        try {
            listen.close();
        } catch (IOException ignored) {
            // closing
        }
        for (Socket s : inSockets) {
            PeerLinks.closeQuietly(s);
        }
    }

    /** The rank's side of the root handshake (see {@link Handshake}). */
    private record RootHelloClient(AuthKeys keys, int rank, int nRanks, long timeoutNs) {
        InetSocketAddress[] hello(InetSocketAddress root, InetSocketAddress me, PeerLinks links) {
            long deadline = System.nanoTime() + timeoutNs;
            try (Socket s = links.connect(root, deadline, "the bootstrap root", null)) {
                s.setSoTimeout(BootstrapRoot.HANDSHAKE_MS * 2);
                DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 4096));
                DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 1024));
                Frames.Frame c = Frames.read(in, Handshake.MAX_HANDSHAKE_BYTES);
                if (c.tag() == Handshake.TAG_ERROR) {
                    throw rootError(Handshake.reason(c.payload()));
                }
                if (c.tag() != Handshake.TAG_CHALLENGE || c.payload().length != AuthKeys.NONCE_BYTES) {
                    throw new JcclException(Result.INVALID_USAGE, "rank " + rank + ": " + root
                            + " is not a JCCL bootstrap root (wrong JCCL_COMM_ID / MASTER_PORT?)");
                }
                byte[] nonce = AuthKeys.nonce();
                long timeoutMs = TimeUnit.NANOSECONDS.toMillis(timeoutNs);
                Frames.write(out, Handshake.TAG_HELLO, Handshake.signRootHello(keys, c.payload(),
                        new Handshake.RootHello(keys.magic(), rank, nRanks, timeoutMs, me, nonce)));
                // The root answers once every rank has joined, or with an error naming the missing ranks; wait a
                // little longer than the root so its more precise message arrives first.
                long waitMs = timeoutMs + timeoutMs / 10 + 1000;
                awaitAnswer(s, in, root, waitMs);
                Frames.Frame f = Frames.read(in, Handshake.MAX_HANDSHAKE_BYTES * 8);
                if (f.tag() == Handshake.TAG_ERROR) {
                    throw rootError(Handshake.reason(f.payload()));
                }
                if (f.tag() != Handshake.TAG_NEXT) {
                    throw new JcclException(Result.INTERNAL_ERROR, "rank " + rank
                            + ": unexpected answer from the bootstrap root");
                }
                InetSocketAddress[] ahead = Handshake.openAhead(keys, nonce, f.payload());
                if (ahead.length != 64 - Long.numberOfLeadingZeros(Math.max(1, nRanks - 1))) {
                    throw new JcclException(Result.INTERNAL_ERROR, "rank " + rank + ": the bootstrap root sent "
                            + ahead.length + " addresses for " + nRanks + " ranks");
                }
                return ahead;
            } catch (Handshake.Rejected e) {
                throw new JcclException(Result.INVALID_USAGE, "rank " + rank + " of " + nRanks + ": " + e.getMessage());
            } catch (IOException e) {
                throw new JcclException(Result.REMOTE_ERROR, "rank " + rank + ": bootstrap root at " + root
                        + " closed the connection: " + e.getMessage() + " (root process gone, or a wrong UniqueId?)",
                                e);
            }
        }

        /**
         * Waits up to {@code waitMs} for the root's answer to begin, saying every JCCL_WAIT_LOG_MS that this rank
         * joined and waits for the others (the root's own line names who is missing).
         */
        private void awaitAnswer(Socket s, DataInputStream in, InetSocketAddress root, long waitMs)
                throws IOException {
            long start = System.nanoTime();
            long everyMs = Params.WAIT_LOG_MS.get();
            while (true) {
                long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                long left = waitMs - waited;
                if (left <= 0) {
                    throw new JcclException(Result.TIMEOUT, "rank " + rank + " of " + nRanks
                            + ": the bootstrap root at " + root + " did not answer within " + waitMs
                            + " ms (not all ranks joined?)");
                }
                s.setSoTimeout((int) Math.max(1, Math.min(left, everyMs)));
                in.mark(1);
                try {
                    if (in.read() < 0) {
                        throw new IOException("end of stream");
                    }
                    in.reset();
                    s.setSoTimeout(BootstrapRoot.HANDSHAKE_MS * 2);
                    return;
                } catch (SocketTimeoutException e) {
                    if (left > everyMs) {
                        Log.warn(rank, "rank %d of %d: joined the bootstrap root at %s %d s ago; waiting for the "
                                + "other ranks for %d s more", rank, nRanks, root,
                                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start), (left - everyMs) / 1000);
                    }
                }
            }
        }

        private JcclException rootError(String msg) {
            Result r = msg.contains("did not join") ? Result.TIMEOUT
                    : msg.contains("another communicator") ? Result.INVALID_USAGE : Result.INVALID_ARGUMENT;
            return new JcclException(r, "rank " + rank + " of " + nRanks + ": " + msg);
        }
    }
}
