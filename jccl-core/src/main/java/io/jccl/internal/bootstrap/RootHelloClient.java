package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.debug.Log;
import io.jccl.internal.param.Params;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The rank's side of the root handshake (see {@link Handshake}): connects to the bootstrap root, answers its
 * challenge with a signed hello, and waits until every rank has joined for the root's signed answer: from the only
 * root the listen addresses of the ranks 1, 2, 4, … ahead ({@link #hello}), from one of several roots the ring
 * neighbours it knows ({@link #neighbours}). A root's error is turned into an exception naming its cause.
 *
 * @param keys      the keys of the root's id
 * @param rootIndex which root this is, of {@code nRoots}
 * @param idsDigest a digest of the rank's list of ids (0 with one root)
 *
 * <p>Owned by: the rank's init thread (or a helper thread of it for a second root). Mirrors: bootstrap.cc
 * sendToRoot and the wait for the root's answer.
 */
record RootHelloClient(AuthKeys keys, int rank, int nRanks, long timeoutNs, int rootIndex, int nRoots,
                       long idsDigest) {
    /** A client of the only root. */
    RootHelloClient(AuthKeys keys, int rank, int nRanks, long timeoutNs) {
        this(keys, rank, nRanks, timeoutNs, 0, 1, 0);
    }

    /** The listen addresses of the ranks 1, 2, 4, … ahead, from the only root. */
    InetSocketAddress[] hello(InetSocketAddress root, InetSocketAddress me, PeerLinks links) {
        InetSocketAddress[] ahead = exchange(root, me, links, s -> { }, Handshake::openAhead);
        if (ahead.length != 64 - Long.numberOfLeadingZeros(Math.max(1, nRanks - 1))) {
            throw new JcclException(Result.INTERNAL_ERROR, "rank " + rank + ": the bootstrap root sent "
                    + ahead.length + " addresses for " + nRanks + " ranks");
        }
        return ahead;
    }

    /**
     * {next, prev}: the listen addresses of this rank's ring neighbours that one of several roots knows (null where
     * it does not). {@code opened} is given the connection to the root as soon as it is open, so that another
     * thread can end the wait by closing it.
     */
    InetSocketAddress[] neighbours(InetSocketAddress root, InetSocketAddress me, PeerLinks links,
            Consumer<Socket> opened) {
        return exchange(root, me, links, opened, Handshake::openNeighbours);
    }

    /** Reads the root's signed answer. */
    @FunctionalInterface
    private interface Opener<T> {
        T open(AuthKeys keys, byte[] rankNonce, byte[] payload) throws Handshake.Rejected;
    }

    private <T> T exchange(InetSocketAddress root, InetSocketAddress me, PeerLinks links, Consumer<Socket> opened,
            Opener<T> opener) {
        long deadline = System.nanoTime() + timeoutNs;
        try (Socket s = links.connect(root, deadline, "the bootstrap root", null)) {
            opened.accept(s);
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
                    new Handshake.RootHello(keys.magic(), rank, nRanks, timeoutMs, me, nonce, rootIndex, nRoots,
                            idsDigest)));
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
            return opener.open(keys, nonce, f.payload());
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
