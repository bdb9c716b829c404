package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.Tls;
import io.jccl.internal.bootstrap.Goodbye.Departure;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;
import io.jccl.internal.transport.PeerExchange;
import io.jccl.internal.transport.net.socket.NetInterfaces;

import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One rank's bootstrap network (NCCL's {@code bootstrapInit} and {@code bootstrapSend/Recv/AllGather}): a listening
 * socket, an authenticated hello to the root that returns the addresses of the ranks 1, 2, 4, … ahead
 * ({@link RootHelloClient}), an allGather of every rank's listen address ({@link LogGather}), and from then on tagged
 * messages to any peer over one cached, authenticated connection per direction, opened on first use
 * ({@link PeerLinks}; to a rank of this process: straight into its mailbox, see {@link LocalPeers}). Incoming
 * connections are served by a {@link PeerAcceptor}. {@link #allGather} takes ceil(log2 n) steps. Every wait has a
 * deadline and notices a broken communicator. How each peer left (an orderly close, a failure it announced, or a
 * connection that just ended) is reported to {@link #onDeparture} listeners ({@link Departures}).
 *
 * <p>Owned by: the communicator's threads (send/recv are thread-safe); one virtual reader thread per incoming
 * connection and one virtual accept thread. Mirrors: bootstrap.cc.
 */
public final class Bootstrap implements PeerExchange, AutoCloseable {
    /** Tag of {@link #allGather}. */
    public static final int TAG_ALLGATHER = 0x4a43_4312;

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
    private final Mailbox mailbox;
    private final InetSocketAddress[] peers;
    private final PeerLinks links;
    private final LocalPeers local;
    private InetSocketAddress me;
    private final Departures departures;
    private final PeerAcceptor acceptor;
    private volatile CommHealth health;
    private final List<Runnable> beforeClose = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private Bootstrap(int rank, int nRanks, AuthKeys keys, long timeoutNs, ServerSocket listen) {
        this.rank = rank;
        this.nRanks = nRanks;
        this.keys = keys;
        this.tls = Tls.forComm(keys);
        this.timeoutNs = timeoutNs;
        this.mailbox = new Mailbox(rank, nRanks);
        this.peers = new InetSocketAddress[nRanks];
        this.links = new PeerLinks(rank, keys, tls, peers);
        this.local = new LocalPeers(this, keys, peers, Params.BOOTSTRAP_LOCAL.get() != 0);
        this.departures = new Departures(rank, nRanks, mailbox);
        this.acceptor = new PeerAcceptor(rank, nRanks, keys, tls, listen, mailbox, departures, this::isClosed);
    }

    /**
     * Joins the bootstrap network of {@code id}: says hello to the root, learns the ring successor, and gathers every
     * rank's listen address. Blocks until all ranks joined or the deadline passes.
     */
    public static Bootstrap init(UniqueId id, int rank, int nRanks, long timeoutNs) {
        return init(List.of(id), rank, nRanks, timeoutNs);
    }

    /**
     * Joins the bootstrap network whose roots {@code ids} name (NCCL's scalable init): with one id as above; with
     * several, root g serves a contiguous group of ranks ({@link RootGroups}), each rank learns its ring neighbours
     * from the roots ({@link RootGroupJoin}), the ranks farther away by pointer jumping along the ring, then every
     * rank's listen address as with one root. The communicator's keys are those of the first id. Every rank must pass
     * the same ids in the same order.
     */
    public static Bootstrap init(List<UniqueId> ids, int rank, int nRanks, long timeoutNs) {
        RootGroups groups = new RootGroups(nRanks, ids.size());
        InetSocketAddress root = ids.get(groups.rootOf(rank)).rootAddress();
        NetInterfaces.IfAddress ifa = NetInterfaces.choose(root.getAddress().isLoopbackAddress());
        ServerSocket ss;
        try {
            ss = new ServerSocket();
            ss.bind(new InetSocketAddress(ifa.address(), 0), 1024);
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "rank " + rank + ": cannot open bootstrap listen socket on "
                    + ifa + ": " + e.getMessage(), e);
        }
        Bootstrap b = new Bootstrap(rank, nRanks, AuthKeys.of(ids.getFirst()), timeoutNs, ss);
        Log.info(Subsys.BOOTSTRAP, rank, "Bootstrap: using %s, listening on port %d", ifa, ss.getLocalPort());
        b.acceptor.start();
        try {
            InetSocketAddress me = new InetSocketAddress(ifa.address(), ss.getLocalPort());
            b.me = me;
            b.local.register(me);
            if (groups.nRoots() == 1) {
                InetSocketAddress[] ahead = new RootHelloClient(b.keys, rank, nRanks, timeoutNs).hello(root, me,
                        b.links);
                for (int k = 0; k < ahead.length; k++) {
                    b.peers[(int) ((rank + (1L << k)) % nRanks)] = ahead[k];
                }
            } else {
                RootGroupJoin.join(ids, groups, rank, me, timeoutNs, b.peers);
                LogGather.ringJumps(b, b.peers);
            }
            b.peers[rank] = me;
            LogGather.addresses(b, b.peers);
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
        departures.listen(l);
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
        Goodbye g = departures.of(peer);
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
     * Every rank's {@code mine}, indexed by rank, in ceil(log2 n) steps (Bruck's allGather, see {@link LogGather}), so
     * each rank talks to about log2(n) peers. NCCL's bootstrap uses the ring.
     */
    @Override
    public byte[][] allGather(byte[] mine) {
        return LogGather.blocks(this, TAG_ALLGATHER, mine);
    }

    /** Returns when every rank has called it. */
    @Override
    public void barrier() {
        allGather(new byte[0]);
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
            departures.depart(from, Goodbye.decode(payload));
        } else {
            mailbox.put(from, tag, payload.clone());
        }
        return true;
    }

    /** Open bootstrap sockets of this rank: its listener, outgoing and incoming connections (for the init log). */
    public int socketCount() {
        return 1 + links.openCount() + acceptor.count();
    }

    /** Peers of this process this rank talks to in memory, without a socket. */
    public int localPeerCount() {
        return local.count();
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
        acceptor.close();
    }
}
