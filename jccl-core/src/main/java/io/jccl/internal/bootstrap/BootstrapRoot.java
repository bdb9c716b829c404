package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.Tls;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;
import io.jccl.internal.transport.net.socket.NetInterfaces;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Semaphore;

/**
 * The bootstrap root (NCCL's {@code bootstrapRoot}): accepts every rank's authenticated hello (see {@link Handshake})
 * and, once all {@code nRanks} have arrived, tells each rank the addresses of the ranks 1, 2, 4, … ahead of it. One
 * of several roots (a scalable init, see {@link RootGroups}) waits for its group of ranks and its neighbour instead,
 * and tells each its ring neighbours that it knows; all must agree on the list of ids. Each connection is
 * served on its own virtual thread with a short read deadline, so a garbage, oversized or silent client is dropped
 * without delaying anyone else; at most {@link #MAX_PENDING} handshakes run at once. Ranks that do not arrive within
 * the deadline (counted from the first arrival) are named in an error sent to those that did.
 *
 * <p>Owned by: its accept thread "jccl-bootstrap-root" plus one virtual thread per connection; the gathering state is
 * guarded by {@code this}. Mirrors: bootstrap.cc bootstrapRoot / bootstrapCreateRoot.
 */
public final class BootstrapRoot implements Runnable {
    /** How long a root waits for its first rank before giving up silently. */
    private static final long IDLE_LIMIT_MS = 3_600_000L;
    /** How long a connection may take to complete its handshake. */
    static final int HANDSHAKE_MS = 5_000;
    /** Handshakes in progress at once; more connections are closed at once. */
    static final int MAX_PENDING = 1024;

    private final ServerSocket server;
    private final AuthKeys keys;
    private final Tls tls;
    private final long defaultTimeoutMs;
    private final Semaphore pending = new Semaphore(MAX_PENDING);
    private final List<Arrival> arrived = new ArrayList<>();
    /** Arrivals by slot of this root's group ({@link RootGroups#slot}): by rank when it is the only root. */
    private Arrival[] byRank;
    private int nRanks = -1;
    private RootGroups groups;
    private int index;
    private long deadlineMs;
    private volatile boolean finished;
    /** Why the bootstrap failed (told to ranks that arrive afterwards too), else null. */
    private volatile String failure;

    private BootstrapRoot(ServerSocket server, AuthKeys keys, long timeoutMs) {
        this.server = server;
        this.keys = keys;
        this.tls = Tls.forComm(keys);
        this.defaultTimeoutMs = timeoutMs;
    }

    /** Creates a new handle and starts its root on the chosen interface (an ephemeral port). */
    public static UniqueId startNew() {
        NetInterfaces.IfAddress ifa = NetInterfaces.choose(false);
        ServerSocket ss = listen(new InetSocketAddress(ifa.address(), 0));
        UniqueId id = UniqueId.create(new InetSocketAddress(ifa.address(), ss.getLocalPort()));
        Log.info(Subsys.BOOTSTRAP, -1, "Bootstrap root listening on %s:%d (%s)", ifa.address().getHostAddress(),
                ss.getLocalPort(), ifa.ifName());
        start(ss, AuthKeys.of(id));
        return id;
    }

    /**
     * Starts a root on {@code bind} (port 0: an ephemeral one) for a communicator whose handle is made of
     * {@code magic} and {@code secret} and the returned address (split and shrink: the new rank 0 does this).
     */
    public static UniqueId startNew(InetAddress bind, long magic, byte[] secret) {
        ServerSocket ss = listen(new InetSocketAddress(bind, 0));
        UniqueId id = UniqueId.create(new InetSocketAddress(bind, ss.getLocalPort()), magic, secret);
        start(ss, AuthKeys.of(id));
        return id;
    }

    /** Starts a root for an existing handle, listening on {@code bind} (launch-by-environment: rank 0 does this). */
    public static void startAt(InetSocketAddress bind, UniqueId id) {
        start(listen(bind), AuthKeys.of(id));
    }

    private static void start(ServerSocket ss, AuthKeys keys) {
        Thread t = new Thread(new BootstrapRoot(ss, keys, Params.TIMEOUT_MS.get()), "jccl-bootstrap-root");
        t.setDaemon(true);
        t.start();
    }

    private static ServerSocket listen(InetSocketAddress bind) {
        try {
            ServerSocket ss = new ServerSocket();
            ss.setReuseAddress(true);
            ss.bind(bind, 1024);
            return ss;
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "bootstrap root cannot listen on " + bind + ": "
                    + e.getMessage()
                    + (bind.getPort() != 0 ? " (is the port in use? choose another MASTER_PORT / JCCL_COMM_ID)" : ""),
                            e);
        }
    }

    /** A rank that has said hello and waits for its successor's address. */
    private record Arrival(Handshake.RootHello hello, Socket socket, DataOutputStream out) {
    }

    @Override
    public void run() {
        long idleUntil = System.currentTimeMillis() + IDLE_LIMIT_MS;
        long startMs = System.currentTimeMillis();
        long everyMs = Params.WAIT_LOG_MS.get();
        long nextLogMs = startMs + everyMs;
        try (server) {
            while (!finished) {
                long now = System.currentTimeMillis();
                long deadline;
                synchronized (this) {
                    deadline = nRanks < 0 ? idleUntil : deadlineMs;
                    if (now >= nextLogMs && !finished) {
                        nextLogMs += everyMs;
                        logProgress(now - startMs, deadline - now);
                    }
                    if (now >= deadline && !finished) {
                        if (nRanks > 0) {
                            failAll(missingMessage());
                        }
                        finished = true;
                        return;
                    }
                }
                server.setSoTimeout((int) Math.max(1, Math.min(250, deadline - now)));
                Socket s;
                try {
                    s = server.accept();
                } catch (SocketTimeoutException e) {
                    continue;
                }
                if (!pending.tryAcquire()) {
                    Log.warn(-1, "bootstrap root: %d handshakes in progress; dropped a connection from %s",
                            MAX_PENDING, s.getRemoteSocketAddress());
                    closeQuietly(s);
                    continue;
                }
                Thread.ofVirtual().name("jccl-bootstrap-root-conn").start(() -> {
                    try {
                        handshake(s);
                    } finally {
                        pending.release();
                    }
                });
            }
        } catch (IOException e) {
            if (!finished) {
                synchronized (this) {
                    finished = true;
                    failAll("bootstrap root failed: " + e.getMessage());
                }
            }
        }
    }

    /** Serves one connection: challenge, authenticated hello, registration. Never throws. */
    private void handshake(Socket s) {
        DataOutputStream out = null;
        try {
            s.setSoTimeout(HANDSHAKE_MS);
            s.setTcpNoDelay(true);
            if (tls != null) {
                s = tls.wrap(s, false, "a rank at " + s.getRemoteSocketAddress());
            }
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 1024));
            out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 1024));
            byte[] challenge = AuthKeys.nonce();
            Frames.write(out, Handshake.TAG_CHALLENGE, challenge);
            Frames.Frame f = Frames.read(in, Handshake.MAX_HANDSHAKE_BYTES);
            if (f.tag() != Handshake.TAG_HELLO) {
                throw new Handshake.Rejected("not a JCCL bootstrap hello (tag " + Integer.toHexString(f.tag()) + ")");
            }
            Handshake.RootHello h = Handshake.openRootHello(keys, challenge, f.payload());
            s.setSoTimeout(0);
            register(new Arrival(h, s, out));
        } catch (Handshake.Rejected e) {
            reject(s, out, e.getMessage());
        } catch (SocketTimeoutException e) {
            Log.warn(-1, "bootstrap root: dropped %s: no hello within %d ms", s.getRemoteSocketAddress(), HANDSHAKE_MS);
            closeQuietly(s);
        } catch (IOException e) {
            Log.warn(-1, "bootstrap root: dropped connection from %s: %s", s.getRemoteSocketAddress(), e.getMessage());
            closeQuietly(s);
        }
    }

    private synchronized void register(Arrival a) {
        Handshake.RootHello h = a.hello();
        if (finished) {
            reject(a.socket(), a.out(), "this communicator's bootstrap already "
                    + (failure != null ? "failed (" + failure + ")"
                            : byRank != null && arrived.size() == byRank.length ? "completed" : "failed") + "; rank "
                    + h.rank() + " came too late");
            return;
        }
        if (nRanks < 0) {
            nRanks = h.nRanks();
            groups = new RootGroups(h.nRanks(), h.nRoots());
            index = h.rootIndex();
            byRank = new Arrival[groups.expected(index)];
            deadlineMs = System.currentTimeMillis() + (h.timeoutMs() > 0 ? h.timeoutMs() : defaultTimeoutMs);
        }
        arrived.add(a);
        String problem = problem(h);
        if (problem != null) {
            finished = true;
            failAll("bootstrap root: " + problem);
            return;
        }
        byRank[groups.slot(index, h.rank())] = a;
        if (arrived.size() < byRank.length) {
            return;
        }
        finished = true;
        for (int i = 0; i < byRank.length; i++) {
            Arrival me = byRank[i];
            try {
                Frames.write(me.out(), Handshake.TAG_NEXT, answer(i));
            } catch (IOException e) {
                Log.warn(-1, "bootstrap root: rank %d left before its answer: %s", me.hello().rank(), e.getMessage());
            }
        }
        if (groups.nRoots() == 1) {
            Log.info(Subsys.BOOTSTRAP, -1, "Bootstrap root: all %d ranks joined", nRanks);
        } else {
            Log.info(Subsys.BOOTSTRAP, -1, "Bootstrap root %d of %d: ranks %d-%d of %d and rank %d joined", index,
                    groups.nRoots(), groups.first(index), groups.first(index) + groups.size(index) - 1, nRanks,
                    groups.neighbour(index));
        }
        closeAll();
    }

    /** Why the hello {@code h} cannot join the ranks that arrived before it, or null. */
    private String problem(Handshake.RootHello h) {
        Handshake.RootHello first = arrived.getFirst().hello();
        if (h.nRanks() != nRanks) {
            return "rank " + h.rank() + " says the communicator has " + h.nRanks() + " ranks but rank "
                    + first.rank() + " said " + nRanks;
        }
        if (h.nRoots() != groups.nRoots() || h.rootIndex() != index || h.idsDigest() != first.idsDigest()) {
            return "rank " + h.rank() + " was given a different list of UniqueIds than rank " + first.rank() + " ("
                    + h.nRoots() + " ids, this root at place " + h.rootIndex() + ", against " + groups.nRoots()
                    + " ids, place " + index + "): every rank must pass the same ids in the same order";
        }
        int slot = groups.slot(index, h.rank());
        if (slot < 0) {
            return "rank " + h.rank() + " does not belong to the group of bootstrap root " + index + " (ranks "
                    + groups.first(index) + "-" + (groups.first(index) + groups.size(index) - 1) + " and rank "
                    + groups.neighbour(index) + ")";
        }
        return byRank[slot] != null ? "rank " + h.rank() + " joined twice (two processes started with the same rank?)"
                : null;
    }

    /** The signed answer to the hello in slot {@code i}, once every slot is filled. */
    private byte[] answer(int i) {
        Handshake.RootHello me = byRank[i].hello();
        if (groups.nRoots() == 1) {
            List<InetSocketAddress> ahead = new ArrayList<>();
            for (int d = 1; d < Math.max(2, nRanks); d *= 2) {
                ahead.add(byRank[(i + d) % nRanks].hello().listen());
            }
            return Handshake.signAhead(keys, me.nonce(), ahead.toArray(InetSocketAddress[]::new));
        }
        int size = groups.size(index);
        InetSocketAddress next = i < size ? byRank[i + 1].hello().listen() : null;
        InetSocketAddress prev = i == size ? byRank[size - 1].hello().listen()
                : i > 0 ? byRank[i - 1].hello().listen() : null;
        return Handshake.signNeighbours(keys, me.nonce(), next, prev);
    }

    private void reject(Socket s, DataOutputStream out, String why) {
        Log.warn(-1, "bootstrap root: rejected connection from %s: %s", s.getRemoteSocketAddress(), why);
        if (out != null) {
            try {
                Frames.write(out, Handshake.TAG_ERROR, why.getBytes(StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                // the peer is gone already
            }
        }
        closeQuietly(s);
    }

    /** The line a waiting root prints every JCCL_WAIT_LOG_MS: who joined, who is missing. */
    private void logProgress(long waitedMs, long leftMs) {
        if (nRanks < 0) {
            Log.warn(-1, "bootstrap root on %s: no rank has joined after %d s", server.getLocalSocketAddress(),
                    waitedMs / 1000);
            return;
        }
        TreeSet<Integer> missing = missing();
        Log.warn(-1, "bootstrap root on %s: %d of %d ranks joined after %d s; waiting for rank(s) %s for %d s more "
                + "(%s)", server.getLocalSocketAddress(), byRank.length - missing.size(), byRank.length,
                waitedMs / 1000, missing, Math.max(0, leftMs / 1000), Params.TIMEOUT_MS.name());
    }

    private String missingMessage() {
        return "bootstrap root: rank(s) " + missing() + " of " + nRanks + " did not join within the deadline ("
                + Params.TIMEOUT_MS.name() + ")";
    }

    /** The ranks this root still waits for. */
    private TreeSet<Integer> missing() {
        TreeSet<Integer> missing = new TreeSet<>();
        for (int i = 0; i < byRank.length; i++) {
            if (byRank[i] == null) {
                missing.add(groups.rankAt(index, i));
            }
        }
        return missing;
    }

    /** Tells every rank that arrived why the communicator cannot be formed, then closes everything. */
    private void failAll(String message) {
        failure = message;
        Log.warn(-1, "%s", message);
        for (Arrival a : arrived) {
            try {
                Frames.write(a.out(), Handshake.TAG_ERROR, message.getBytes(StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                // that rank is gone; nothing more to tell it
            }
        }
        closeAll();
    }

    private void closeAll() {
        for (Arrival a : arrived) {
            closeQuietly(a.socket());
        }
        try {
            server.close();
        } catch (IOException ignored) {
            // stops the accept loop
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
