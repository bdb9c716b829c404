package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;
import io.jccl.internal.transport.net.NetInterfaces;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The bootstrap root (NCCL's {@code bootstrapRoot}): a daemon thread that accepts every rank's hello (its listen
 * address, authenticated by the handle's magic), and once all {@code nRanks} have arrived tells each rank the address
 * of its ring successor. Connections with a wrong magic are answered with a rejection and dropped; ranks that do not
 * arrive within the deadline (counted from the first arrival) are named in an error sent to those that did.
 *
 * <p>Owned by: its own thread "jccl-bootstrap-root". Mirrors: bootstrap.cc bootstrapRoot / bootstrapCreateRoot.
 */
public final class BootstrapRoot implements Runnable {
    static final int TAG_HELLO = 0x4a43_4301;
    static final int TAG_NEXT = 0x4a43_4302;
    static final int TAG_ERROR = 0x4a43_4303;
    /** How long a root waits for its first rank before giving up silently. */
    private static final long IDLE_LIMIT_MS = 3_600_000L;

    private final ServerSocket server;
    private final long magic;
    private final long timeoutMs;

    private BootstrapRoot(ServerSocket server, long magic, long timeoutMs) {
        this.server = server;
        this.magic = magic;
        this.timeoutMs = timeoutMs;
    }

    /** Creates a new handle and starts its root on the chosen interface (an ephemeral port). */
    public static UniqueId startNew() {
        NetInterfaces.IfAddress ifa = NetInterfaces.choose(false);
        ServerSocket ss = listen(new InetSocketAddress(ifa.address(), 0));
        UniqueId id = UniqueId.create(new InetSocketAddress(ifa.address(), ss.getLocalPort()));
        Log.info(Subsys.BOOTSTRAP, -1, "Bootstrap root listening on %s:%d (%s)", ifa.address().getHostAddress(),
                ss.getLocalPort(), ifa.ifName());
        start(ss, id.magic());
        return id;
    }

    /** Starts a root for an existing handle, listening on {@code bind} (launch-by-environment: rank 0 does this). */
    public static void startAt(InetSocketAddress bind, long magic) {
        start(listen(bind), magic);
    }

    private static void start(ServerSocket ss, long magic) {
        Thread t = new Thread(new BootstrapRoot(ss, magic, Params.TIMEOUT_MS.get()), "jccl-bootstrap-root");
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
            throw new JcclException(Result.SYSTEM_ERROR, "bootstrap root cannot listen on " + bind + ": " + e.getMessage()
                    + (bind.getPort() != 0 ? " (is the port in use? choose another MASTER_PORT / JCCL_COMM_ID)" : ""), e);
        }
    }

    /** A rank that has said hello and waits for its successor's address. */
    private record Arrival(int rank, InetSocketAddress listen, Socket socket, DataOutputStream out, long timeoutMs) {
    }

    @Override
    public void run() {
        List<Arrival> arrived = new ArrayList<>();
        Arrival[] byRank = null;
        int nRanks = -1;
        long deadline = System.currentTimeMillis() + IDLE_LIMIT_MS;
        try (server) {
            while (nRanks < 0 || arrived.size() < nRanks) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    if (nRanks > 0) {
                        failAll(arrived, missingMessage(byRank, nRanks));
                    }
                    return;
                }
                server.setSoTimeout((int) Math.min(left, Integer.MAX_VALUE));
                Socket s;
                try {
                    s = server.accept();
                } catch (SocketTimeoutException e) {
                    continue;
                }
                Arrival a = readHello(s, (int) Math.min(Math.max(left, 1), 10_000));
                if (a == null) {
                    continue;
                }
                int claimedN = a.rank >>> 16;
                int rank = a.rank & 0xffff;
                a = new Arrival(rank, a.listen, a.socket, a.out, a.timeoutMs);
                if (nRanks < 0) {
                    nRanks = claimedN;
                    byRank = new Arrival[nRanks];
                    deadline = System.currentTimeMillis() + (a.timeoutMs > 0 ? a.timeoutMs : timeoutMs);
                }
                String problem = claimedN != nRanks ? "rank " + rank + " says the communicator has " + claimedN
                        + " ranks but rank " + arrived.getFirst().rank + " said " + nRanks
                        : rank >= nRanks ? "rank " + rank + " is out of range for " + nRanks + " ranks"
                        : byRank[rank] != null ? "rank " + rank + " joined twice (two processes started with the same rank?)"
                        : null;
                if (problem != null) {
                    arrived.add(a);
                    failAll(arrived, "bootstrap root: " + problem);
                    return;
                }
                byRank[rank] = a;
                arrived.add(a);
            }
            for (int r = 0; r < nRanks; r++) {
                Arrival next = byRank[(r + 1) % nRanks];
                ByteArrayOutputStream bos = new ByteArrayOutputStream();
                DataOutputStream d = new DataOutputStream(bos);
                Frames.writeAddress(d, next.listen);
                send(byRank[r], TAG_NEXT, bos.toByteArray());
            }
            Log.info(Subsys.BOOTSTRAP, -1, "Bootstrap root: all %d ranks joined", nRanks);
        } catch (IOException e) {
            failAll(arrived, "bootstrap root failed: " + e.getMessage());
        } finally {
            for (Arrival a : arrived) {
                closeQuietly(a.socket);
            }
        }
    }

    /** Reads and checks a hello; on a wrong magic or garbage answers with an error and returns null. */
    private Arrival readHello(Socket s, int timeoutMs) {
        try {
            s.setSoTimeout(timeoutMs);
            s.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
            Frames.Frame f = Frames.read(in);
            DataInputStream p = new DataInputStream(new java.io.ByteArrayInputStream(f.payload()));
            if (f.tag() != TAG_HELLO || f.payload().length < 24) {
                reject(s, out, "not a JCCL bootstrap hello");
                return null;
            }
            long m = p.readLong();
            if (m != magic) {
                reject(s, out, "wrong magic: this rank's UniqueId belongs to another communicator");
                return null;
            }
            int rank = p.readInt();
            int nRanks = p.readInt();
            long rankTimeoutMs = p.readLong();
            if (rank < 0 || nRanks <= 0 || rank > 0xffff || nRanks > 0xffff) {
                reject(s, out, "bad rank " + rank + " / nRanks " + nRanks);
                return null;
            }
            InetSocketAddress listen = Frames.readAddress(p);
            s.setSoTimeout(0);
            return new Arrival((nRanks << 16) | rank, listen, s, out, rankTimeoutMs);
        } catch (IOException e) {
            Log.warn(-1, "bootstrap root: dropped connection from %s: %s", s.getRemoteSocketAddress(), e.getMessage());
            closeQuietly(s);
            return null;
        }
    }

    private static void reject(Socket s, DataOutputStream out, String why) {
        Log.warn(-1, "bootstrap root: rejected connection from %s: %s", s.getRemoteSocketAddress(), why);
        try {
            Frames.write(out, TAG_ERROR, why.getBytes(StandardCharsets.UTF_8));
        } catch (IOException ignored) {
            // the peer is gone already
        }
        closeQuietly(s);
    }

    private static String missingMessage(Arrival[] byRank, int nRanks) {
        TreeSet<Integer> missing = new TreeSet<>();
        for (int r = 0; r < nRanks; r++) {
            if (byRank[r] == null) {
                missing.add(r);
            }
        }
        return "bootstrap root: rank(s) " + missing + " of " + nRanks + " did not join within the deadline ("
                + Params.TIMEOUT_MS.name() + ")";
    }

    private static void failAll(List<Arrival> arrived, String message) {
        Log.warn(-1, "%s", message);
        for (Arrival a : arrived) {
            try {
                send(a, TAG_ERROR, message.getBytes(StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                // that rank is gone; nothing more to tell it
            }
        }
    }

    private static void send(Arrival a, int tag, byte[] payload) throws IOException {
        Frames.write(a.out, tag, payload);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
