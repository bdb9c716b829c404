package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.comm.CommHealth;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.transport.net.NetInterfaces;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * One rank's bootstrap network (NCCL's {@code bootstrapInit} and {@code bootstrapSend/Recv/AllGather}): a listening
 * socket, a hello to the root that returns the ring successor's address, a ring allGather of every rank's listen
 * address, and from then on tagged messages to any peer over one cached connection per direction. Every wait has a
 * deadline and notices a broken communicator.
 *
 * <p>Owned by: the communicator's threads (send/recv are thread-safe); one virtual reader thread per incoming
 * connection and one virtual accept thread. Mirrors: bootstrap.cc.
 */
public final class Bootstrap implements AutoCloseable {
    static final int TAG_PEER_HELLO = 0x4a43_4310;
    /** Tag of the address allGather during init. */
    private static final int TAG_RING_ADDR = 0x4a43_4311;
    /** Tag of {@link #allGather}. */
    public static final int TAG_ALLGATHER = 0x4a43_4312;

    private final int rank;
    private final int nRanks;
    private final long magic;
    private final long timeoutNs;
    private final ServerSocket listen;
    private final Mailbox mailbox;
    private final InetSocketAddress[] peers;
    private final Socket[] outSockets;
    private final DataOutputStream[] outStreams;
    private final List<Socket> inSockets = new CopyOnWriteArrayList<>();
    private volatile CommHealth health;
    private volatile boolean closed;

    private Bootstrap(int rank, int nRanks, long magic, long timeoutNs, ServerSocket listen) {
        this.rank = rank;
        this.nRanks = nRanks;
        this.magic = magic;
        this.timeoutNs = timeoutNs;
        this.listen = listen;
        this.mailbox = new Mailbox(rank, nRanks);
        this.peers = new InetSocketAddress[nRanks];
        this.outSockets = new Socket[nRanks];
        this.outStreams = new DataOutputStream[nRanks];
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
        Bootstrap b = new Bootstrap(rank, nRanks, id.magic(), timeoutNs, ss);
        Log.info(Subsys.BOOTSTRAP, rank, "Bootstrap: using %s, listening on port %d", ifa, ss.getLocalPort());
        Thread.ofVirtual().name("jccl-bootstrap-accept-r" + rank).start(b::acceptLoop);
        try {
            InetSocketAddress me = new InetSocketAddress(ifa.address(), ss.getLocalPort());
            InetSocketAddress next = b.helloRoot(root, me);
            b.peers[rank] = me;
            b.peers[(rank + 1) % nRanks] = next;
            b.ringGatherAddresses();
            return b;
        } catch (RuntimeException e) {
            b.close();
            throw e;
        }
    }

    public int rank() {
        return rank;
    }

    public int nRanks() {
        return nRanks;
    }

    /** Lets waits stop early when the communicator fails. */
    public void attach(CommHealth h) {
        this.health = h;
        h.onFailure(mailbox::wakeAll);
    }

    private InetSocketAddress helloRoot(InetSocketAddress root, InetSocketAddress me) {
        long deadline = System.nanoTime() + timeoutNs;
        try (Socket s = connectWithRetry(root, deadline, "the bootstrap root")) {
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            DataOutputStream d = new DataOutputStream(bos);
            d.writeLong(magic);
            d.writeInt(rank);
            d.writeInt(nRanks);
            d.writeLong(TimeUnit.NANOSECONDS.toMillis(timeoutNs));
            Frames.writeAddress(d, me);
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
            Frames.write(out, BootstrapRoot.TAG_HELLO, bos.toByteArray());
            // The root answers once every rank has joined, or with an error naming the missing ranks; wait a little
            // longer than the root so its more precise message arrives first.
            long waitMs = TimeUnit.NANOSECONDS.toMillis(timeoutNs) + TimeUnit.NANOSECONDS.toMillis(timeoutNs) / 10 + 1000;
            s.setSoTimeout((int) Math.min(waitMs, Integer.MAX_VALUE));
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            Frames.Frame f;
            try {
                f = Frames.read(in);
            } catch (java.net.SocketTimeoutException e) {
                throw new JcclException(Result.TIMEOUT, "rank " + rank + " of " + nRanks + ": the bootstrap root at "
                        + root + " did not answer within " + waitMs + " ms (not all ranks joined?)");
            }
            if (f.tag() == BootstrapRoot.TAG_ERROR) {
                String msg = new String(f.payload(), StandardCharsets.UTF_8);
                Result r = msg.contains("did not join") ? Result.TIMEOUT
                        : msg.contains("magic") ? Result.INVALID_USAGE : Result.INVALID_ARGUMENT;
                throw new JcclException(r, "rank " + rank + " of " + nRanks + ": " + msg);
            }
            if (f.tag() != BootstrapRoot.TAG_NEXT) {
                throw new JcclException(Result.INTERNAL_ERROR, "rank " + rank + ": unexpected answer from the bootstrap root");
            }
            return Frames.readAddress(new DataInputStream(new ByteArrayInputStream(f.payload())));
        } catch (IOException e) {
            throw new JcclException(Result.REMOTE_ERROR, "rank " + rank + ": bootstrap root at " + root
                    + " closed the connection: " + e.getMessage() + " (root process gone, or a wrong UniqueId?)", e);
        }
    }

    private void ringGatherAddresses() {
        int next = (rank + 1) % nRanks;
        int prev = (rank - 1 + nRanks) % nRanks;
        for (int step = 0; step < nRanks - 1; step++) {
            int sendIdx = (rank - step + nRanks) % nRanks;
            int recvIdx = (rank - step - 1 + nRanks) % nRanks;
            ByteBuffer out = ByteBuffer.allocate(4 + 1 + 16 + 2);
            out.putInt(sendIdx);
            byte[] ip = peers[sendIdx].getAddress().getAddress();
            out.put((byte) ip.length).put(ip).putShort((short) peers[sendIdx].getPort());
            send(next, TAG_RING_ADDR, java.util.Arrays.copyOf(out.array(), out.position()));
            ByteBuffer in = ByteBuffer.wrap(recv(prev, TAG_RING_ADDR, "bootstrap address allGather"));
            int idx = in.getInt();
            if (idx != recvIdx) {
                throw new JcclException(Result.INTERNAL_ERROR, "bootstrap ring allGather out of order: got rank " + idx
                        + " expected " + recvIdx);
            }
            byte[] rip = new byte[in.get()];
            in.get(rip);
            try {
                peers[idx] = new InetSocketAddress(java.net.InetAddress.getByAddress(rip), in.getShort() & 0xffff);
            } catch (java.net.UnknownHostException e) {
                throw new JcclException(Result.INTERNAL_ERROR, "bad address in bootstrap allGather", e);
            }
        }
    }

    /** Sends a tagged message to {@code peer} (asynchronous to the peer: it is queued there until received). */
    public void send(int peer, int tag, byte[] payload) {
        checkPeer(peer);
        DataOutputStream out;
        synchronized (outStreams) {
            out = outStreams[peer];
            if (out == null) {
                out = openPeer(peer);
            }
        }
        try {
            synchronized (out) {
                Frames.write(out, tag, payload);
            }
        } catch (IOException e) {
            throw new JcclException(Result.REMOTE_ERROR, "rank " + rank + ": bootstrap send to rank " + peer
                    + " failed: " + e.getMessage() + " (rank " + peer + " exited or failed?)", e);
        }
    }

    /** Also delivers every message with {@code tag} to {@code listener} as it arrives (on a reader thread). */
    public void listen(int tag, java.util.function.BiConsumer<Integer, byte[]> listener) {
        mailbox.listen(tag, listener);
    }

    /**
     * Best-effort send that never waits long: used to tell peers about a failure. Returns false if the peer could not
     * be reached within {@code timeoutMs}.
     */
    public boolean trySend(int peer, int tag, byte[] payload, long timeoutMs) {
        if (closed) {
            return false;
        }
        try {
            DataOutputStream out;
            synchronized (outStreams) {
                out = outStreams[peer];
                if (out == null) {
                    Socket s = new Socket();
                    s.connect(peers[peer], (int) timeoutMs);
                    out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 1 << 16));
                    Frames.write(out, TAG_PEER_HELLO, ByteBuffer.allocate(12).putLong(magic).putInt(rank).array());
                    outSockets[peer] = s;
                    outStreams[peer] = out;
                }
            }
            synchronized (out) {
                Frames.write(out, tag, payload);
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Receives the oldest message with {@code tag} from {@code peer}, waiting up to the deadline. */
    public byte[] recv(int peer, int tag, String what) {
        checkPeer(peer);
        return mailbox.take(peer, tag, timeoutNs, health, what);
    }

    /** Every rank's {@code mine}, indexed by rank (a ring allGather, n-1 steps). */
    public byte[][] allGather(byte[] mine) {
        byte[][] all = new byte[nRanks][];
        all[rank] = mine;
        int next = (rank + 1) % nRanks;
        int prev = (rank - 1 + nRanks) % nRanks;
        for (int step = 0; step < nRanks - 1; step++) {
            int sendIdx = (rank - step + nRanks) % nRanks;
            int recvIdx = (rank - step - 1 + nRanks) % nRanks;
            send(next, TAG_ALLGATHER, all[sendIdx]);
            all[recvIdx] = recv(prev, TAG_ALLGATHER, "bootstrap allGather step " + step);
        }
        return all;
    }

    /** Returns when every rank has called it. */
    public void barrier() {
        allGather(new byte[0]);
    }

    private DataOutputStream openPeer(int peer) {
        Socket s = connectWithRetry(peers[peer], System.nanoTime() + timeoutNs, "rank " + peer);
        try {
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 1 << 16));
            ByteBuffer hello = ByteBuffer.allocate(12).putLong(magic).putInt(rank);
            Frames.write(out, TAG_PEER_HELLO, hello.array());
            outSockets[peer] = s;
            outStreams[peer] = out;
            return out;
        } catch (IOException e) {
            throw new JcclException(Result.REMOTE_ERROR, "rank " + rank + ": cannot talk to rank " + peer + ": " + e.getMessage(), e);
        }
    }

    private Socket connectWithRetry(InetSocketAddress to, long deadlineNs, String who) {
        long backoffMs = 10;
        IOException last = null;
        while (System.nanoTime() < deadlineNs) {
            if (health != null && health.isBroken()) {
                throw health.brokenError("rank " + rank + " connecting to " + who);
            }
            Socket s = new Socket();
            try {
                s.setTcpNoDelay(true);
                long left = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
                s.connect(to, (int) Math.max(1, Math.min(left, 10_000)));
                return s;
            } catch (IOException e) {
                last = e;
                try {
                    s.close();
                    Thread.sleep(backoffMs);
                } catch (IOException | InterruptedException ignored) {
                    // retry until the deadline
                }
                backoffMs = Math.min(backoffMs * 2, 500);
            }
        }
        throw new JcclException(Result.TIMEOUT, "rank " + rank + ": could not connect to " + who + " at " + to
                + " before the deadline: " + (last == null ? "timeout" : last.getMessage()));
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket s = listen.accept();
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

    private void readLoop(Socket s) {
        int from = -1;
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout((int) Math.min(TimeUnit.NANOSECONDS.toMillis(timeoutNs), Integer.MAX_VALUE));
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 1 << 16));
            Frames.Frame hello = Frames.read(in);
            ByteBuffer h = ByteBuffer.wrap(hello.payload());
            if (hello.tag() != TAG_PEER_HELLO || hello.payload().length != 12 || h.getLong() != magic) {
                Log.warn(rank, "bootstrap: dropped a connection from %s with a wrong hello/magic", s.getRemoteSocketAddress());
                s.close();
                return;
            }
            from = h.getInt();
            if (from < 0 || from >= nRanks) {
                s.close();
                return;
            }
            s.setSoTimeout(0);
            while (true) {
                Frames.Frame f = Frames.read(in);
                mailbox.put(from, f.tag(), f.payload());
            }
        } catch (IOException e) {
            if (from >= 0) {
                mailbox.peerClosed(from, closed ? "closed" : Frames.isEof(e) ? "connection closed" : e.getMessage());
            }
        }
    }

    private void checkPeer(int peer) {
        if (peer < 0 || peer >= nRanks) {
            throw new JcclException(Result.INVALID_ARGUMENT, "peer " + peer + " out of range [0, " + nRanks + ")");
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listen.close();
        } catch (IOException ignored) {
            // closing
        }
        synchronized (outStreams) {
            for (Socket s : outSockets) {
                closeQuietly(s);
            }
        }
        for (Socket s : inSockets) {
            closeQuietly(s);
        }
        mailbox.wakeAll();
    }

    private static void closeQuietly(Socket s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}
