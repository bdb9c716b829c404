package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.Tls;
import io.jccl.internal.debug.Log;
import io.jccl.internal.param.Params;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * This rank's outgoing bootstrap connections, one per peer, opened on first use with the authenticated peer
 * handshake ({@link Handshake}): connect, read the peer's challenge, send a signed hello, check the peer's signed
 * answer. Each peer has its own lock, so a peer that is slow to answer never delays messages to the others.
 *
 * <p>Owned by: the communicator's threads (any thread may send); frames on one connection are written under the
 * stream's monitor. Mirrors: bootstrap.cc's per-peer socket cache.
 */
final class PeerLinks {
    private final int rank;
    private final AuthKeys keys;
    private final Tls tls;
    private final InetSocketAddress[] addresses;
    private final ReentrantLock[] locks;
    private final Socket[] sockets;
    private final DataOutputStream[] outs;
    private volatile boolean closed;

    PeerLinks(int rank, AuthKeys keys, Tls tls, InetSocketAddress[] addresses) {
        this.rank = rank;
        this.keys = keys;
        this.tls = tls;
        this.addresses = addresses;
        int n = addresses.length;
        this.locks = new ReentrantLock[n];
        for (int p = 0; p < n; p++) {
            locks[p] = new ReentrantLock();
        }
        this.sockets = new Socket[n];
        this.outs = new DataOutputStream[n];
    }

    /**
     * The stream to {@code peer}, opening the connection if needed before {@code deadlineNs}; a non-null
     * {@code health} ends the attempt when the communicator fails.
     */
    DataOutputStream get(int peer, long deadlineNs, CommHealth health) {
        ReentrantLock l = locks[peer];
        l.lock();
        try {
            long backoffMs = 10;
            while (outs[peer] == null) {
                try {
                    open(peer, deadlineNs, health);
                } catch (JcclException e) {
                    // a peer too busy to finish the handshake in time (an overloaded host) is tried again until the
                    // deadline; a refusal, a broken communicator or the deadline itself end the attempt
                    long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
                    if (!(e.getCause() instanceof java.net.SocketTimeoutException) || closed || leftMs <= backoffMs
                            || (health != null && health.isBroken())) {
                        throw e;
                    }
                    Log.warn(rank, "rank %d: bootstrap handshake with rank %d timed out; trying again", rank, peer);
                    sleepMs(backoffMs);
                    backoffMs = Math.min(backoffMs * 2, 1000);
                }
            }
            return outs[peer];
        } finally {
            l.unlock();
        }
    }

    private static void sleepMs(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** As {@link #get}, but gives up (returns null) instead of waiting longer than {@code timeoutMs}. */
    DataOutputStream tryGet(int peer, long timeoutMs) {
        ReentrantLock l = locks[peer];
        try {
            if (!l.tryLock(timeoutMs, TimeUnit.MILLISECONDS)) {
                return null;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        try {
            if (outs[peer] == null && !closed) {
                open(peer, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs), null);
            }
            return outs[peer];
        } catch (JcclException e) {
            return null;
        } finally {
            l.unlock();
        }
    }

    /** Forgets a connection whose write failed, so a later send reconnects. */
    void drop(int peer, DataOutputStream out) {
        ReentrantLock l = locks[peer];
        l.lock();
        try {
            if (outs[peer] == out) {
                closeQuietly(sockets[peer]);
                outs[peer] = null;
                sockets[peer] = null;
            }
        } finally {
            l.unlock();
        }
    }

    private void open(int peer, long deadlineNs, CommHealth health) {
        Socket s = connect(addresses[peer], deadlineNs, "rank " + peer, health);
        try {
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
            s.setSoTimeout((int) Math.max(1, Math.min(leftMs, BootstrapRoot.HANDSHAKE_MS)));
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 1024));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 1 << 16));
            Frames.Frame c = Frames.read(in, Handshake.MAX_HANDSHAKE_BYTES);
            if (c.tag() != Handshake.TAG_PEER_CHALLENGE || c.payload().length != AuthKeys.NONCE_BYTES) {
                throw new Handshake.Rejected("the listener at " + addresses[peer] + " is not a JCCL rank");
            }
            byte[] nonce = AuthKeys.nonce();
            Frames.write(out, Handshake.TAG_PEER_HELLO, Handshake.signPeerHello(keys, c.payload(),
                    new Handshake.PeerHello(keys.magic(), rank, peer, nonce)));
            Frames.Frame v = Frames.read(in, Handshake.MAX_HANDSHAKE_BYTES);
            if (v.tag() == Handshake.TAG_PEER_REJECT) {
                throw new JcclException(Result.INVALID_USAGE, "rank " + rank + ": rank " + peer + " refused the "
                        + "bootstrap connection: " + Handshake.reason(v.payload()));
            }
            if (v.tag() != Handshake.TAG_PEER_OK) {
                throw new Handshake.Rejected("unexpected answer from rank " + peer);
            }
            Handshake.checkPeerOk(keys, nonce, c.payload(), v.payload());
            s.setSoTimeout(0);
            sockets[peer] = s;
            outs[peer] = out;
        } catch (Handshake.Rejected e) {
            closeQuietly(s);
            throw new JcclException(Result.INVALID_USAGE, "rank " + rank + ": bootstrap connection to rank " + peer
                    + " at " + addresses[peer] + " failed authentication: " + e.getMessage(), e);
        } catch (IOException e) {
            closeQuietly(s);
            throw new JcclException(Result.REMOTE_ERROR, "rank " + rank + ": cannot talk to rank " + peer + " at "
                    + addresses[peer] + ": " + e.getMessage() + " (rank " + peer + " exited or is stuck?)", e);
        } catch (RuntimeException e) {
            closeQuietly(s);
            throw e;
        }
    }

    /** Connects to {@code to}, retrying with back-off until {@code deadlineNs}. */
    Socket connect(InetSocketAddress to, long deadlineNs, String who, CommHealth health) {
        long backoffMs = 10;
        IOException last = null;
        long start = System.nanoTime();
        long everyNs = TimeUnit.MILLISECONDS.toNanos(Params.WAIT_LOG_MS.get());
        long nextLog = start + everyNs;
        while (System.nanoTime() < deadlineNs && !closed) {
            if (last != null && System.nanoTime() >= nextLog) {
                nextLog += everyNs;
                Log.warn(rank, "rank %d: still connecting to %s at %s after %d s (last error: %s); retrying for "
                        + "%d s more", rank, who, to, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start),
                        last.getMessage(), TimeUnit.NANOSECONDS.toSeconds(deadlineNs - System.nanoTime()));
            }
            if (health != null && health.isBroken()) {
                throw health.brokenError("rank " + rank + " connecting to " + who);
            }
            Socket s = new Socket();
            try {
                s.setTcpNoDelay(true);
                long left = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
                s.connect(to, (int) Math.max(1, Math.min(left, 10_000)));
                if (tls == null) {
                    return s;
                }
            } catch (IOException e) {
                last = e;
                closeQuietly(s);
                long left = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
                try {
                    Thread.sleep(Math.max(0, Math.min(backoffMs, left)));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
                backoffMs = Math.min(backoffMs * 2, 500);
                continue;
            }
            return secure(s, to, who, deadlineNs);
        }
        if (closed) {
            throw new JcclException(Result.ABORTED, "rank " + rank + ": communicator closed while connecting to "
                    + who);
        }
        throw new JcclException(Result.TIMEOUT, "rank " + rank + ": could not connect to " + who + " at " + to
                + " before the deadline: " + (last == null ? "timeout" : last.getMessage()));
    }

    /** The TLS end of a connection just made (JCCL_TLS), failing at once when the handshake or binding fails. */
    private Socket secure(Socket s, InetSocketAddress to, String who, long deadlineNs) {
        try {
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
            s.setSoTimeout((int) Math.max(1, Math.min(leftMs, BootstrapRoot.HANDSHAKE_MS)));
            return tls.wrap(s, true, who + " at " + to);
        } catch (IOException e) {
            closeQuietly(s);
            throw new JcclException(Result.REMOTE_ERROR, "rank " + rank + ": " + e.getMessage(), e);
        }
    }

    /**
     * Writes {@code g} on every open connection (best effort: gives up after {@code waitMs}, e.g. when a stopped peer
     * does not drain its socket), then closes them all.
     */
    void closeAll(Goodbye g, long waitMs) {
        closed = true;
        byte[] payload = g.encode();
        Thread writer = Thread.ofVirtual().name("jccl-bootstrap-goodbye-r" + rank).start(() -> {
            for (DataOutputStream out : outs.clone()) {
                if (out != null) {
                    try {
                        synchronized (out) {
                            Frames.write(out, Goodbye.TAG, payload);
                        }
                    } catch (IOException ignored) {
                        // that peer is gone already
                    }
                }
            }
        });
        try {
            writer.join(waitMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (int p = 0; p < sockets.length; p++) {
            closeQuietly(sockets[p]);
        }
    }

    /** How many outgoing connections are open. */
    int openCount() {
        int n = 0;
        for (DataOutputStream o : outs) {
            n += o != null ? 1 : 0;
        }
        return n;
    }

    static void closeQuietly(Socket s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
