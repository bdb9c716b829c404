package io.jccl.internal.transport.net;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.bootstrap.AuthKeys;
import io.jccl.internal.comm.CommHealth;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;

/**
 * Socket setup for data connections (NCCL's internal {@code ncclNetSocket}: listen / connect / accept): a listener per
 * connection whose handle (address, port, random nonce, slot size) travels to the sender through the bootstrap; the
 * sender's first bytes are its rank, the channel and {@code HMAC(netKey, nonce, rank, channel)} (the handle's random
 * nonce is the challenge), so the receiver accepts only the expected peer of the same communicator. Connected
 * channels are returned non-blocking with TCP_NODELAY, ready for the proxy thread.
 *
 * <p>Owned by: the thread setting up connections. Mirrors: transport/net_socket.cc listen/connect/accept.
 */
public final class SocketNet {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int HELLO_BYTES = 4 + 4 + AuthKeys.MAC_BYTES;
    /** How long a connection may take to send its hello before it is dropped (a silent client cannot stall accept). */
    private static final int HELLO_TIMEOUT_MS = 2_000;
    /** Longest single blocking accept when the communicator's health is watched. */
    private static final int ACCEPT_SLICE_MS = 100;
    private static final byte[] HELLO_LABEL = "net-hello".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private SocketNet() {
    }

    /** What a sender needs to connect. */
    public record Handle(InetSocketAddress address, long nonce, int stepBytes) {
        public byte[] toBytes() {
            byte[] ip = address.getAddress().getAddress();
            ByteBuffer b = ByteBuffer.allocate(1 + ip.length + 2 + 8 + 4);
            b.put((byte) ip.length).put(ip).putShort((short) address.getPort()).putLong(nonce).putInt(stepBytes);
            return b.array();
        }

        public static Handle fromBytes(byte[] bytes) {
            try {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                int len = b.get();
                if (len != 4 && len != 16) {
                    throw new IOException("address length " + len);
                }
                byte[] ip = new byte[len];
                b.get(ip);
                int port = b.getShort() & 0xffff;
                Handle h = new Handle(new InetSocketAddress(InetAddress.getByAddress(ip), port), b.getLong(), b.getInt());
                if (b.hasRemaining() || port == 0 || h.stepBytes() <= 0) {
                    throw new IOException("port " + port + ", slot size " + h.stepBytes() + ", " + b.remaining()
                            + " trailing bytes");
                }
                return h;
            } catch (IOException | RuntimeException e) {
                throw new JcclException(Result.INTERNAL_ERROR, "corrupt net connection handle", e);
            }
        }
    }

    /** A listener waiting for one sender. */
    public record Listener(ServerSocketChannel server, Handle handle) {
    }

    public static Listener listen(InetAddress ifAddress, int stepBytes) {
        try {
            ServerSocketChannel ss = ServerSocketChannel.open();
            ss.bind(new InetSocketAddress(ifAddress, 0), 1);
            int port = ((InetSocketAddress) ss.getLocalAddress()).getPort();
            return new Listener(ss, new Handle(new InetSocketAddress(ifAddress, port), RANDOM.nextLong(), stepBytes));
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "cannot listen for a data connection on " + ifAddress + ": "
                    + e.getMessage(), e);
        }
    }

    /** Connects to a receiver and introduces itself; returns a non-blocking channel. */
    public static SocketChannel connect(Handle h, AuthKeys keys, int myRank, int channel, long timeoutNs) {
        return connect(h, keys, myRank, channel, timeoutNs, null);
    }

    /** As above; a non-null {@code health} ends the attempts as soon as the communicator fails. */
    public static SocketChannel connect(Handle h, AuthKeys keys, int myRank, int channel, long timeoutNs,
                                        CommHealth health) {
        long deadline = System.nanoTime() + timeoutNs;
        IOException last = null;
        while (System.nanoTime() < deadline) {
            if (health != null && health.isBroken()) {
                throw health.brokenError("rank " + myRank + " connecting data channel " + channel + " to " + h.address());
            }
            SocketChannel ch = null;
            try {
                ch = SocketChannel.open();
                configure(ch);
                Socket s = ch.socket();
                s.connect(h.address(), (int) Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()), 10_000)));
                ByteBuffer hello = ByteBuffer.wrap(hello(keys, h.nonce(), myRank, channel));
                while (hello.hasRemaining()) {
                    ch.write(hello);
                }
                ch.configureBlocking(false);
                return ch;
            } catch (IOException e) {
                last = e;
                closeQuietly(ch);
                sleep(20);
            }
        }
        throw new JcclException(Result.REMOTE_ERROR, "rank " + myRank + ": cannot connect data channel " + channel + " to "
                + h.address() + ": " + (last == null ? "timeout" : last.getMessage()));
    }

    /** The hello a sender writes first: its rank, the channel and their MAC over the receiver's nonce. */
    public static byte[] hello(AuthKeys keys, long nonce, int rank, int channel) {
        return ByteBuffer.allocate(HELLO_BYTES).putInt(rank).putInt(channel)
                .put(keys.mac(AuthKeys.Purpose.NET, HELLO_LABEL, AuthKeys.bytes(nonce), AuthKeys.bytes(rank),
                        AuthKeys.bytes(channel))).array();
    }

    /** True if {@code hello} comes from rank {@code peer} for {@code channel} of this communicator, for this listener. */
    public static boolean checkHello(AuthKeys keys, long nonce, int peer, int channel, byte[] hello) {
        if (hello == null || hello.length != HELLO_BYTES) {
            return false;
        }
        ByteBuffer b = ByteBuffer.wrap(hello);
        if (b.getInt() != peer || b.getInt() != channel) {
            return false;
        }
        byte[] mac = new byte[AuthKeys.MAC_BYTES];
        b.get(mac);
        return keys.verify(AuthKeys.Purpose.NET, mac, HELLO_LABEL, AuthKeys.bytes(nonce), AuthKeys.bytes(peer),
                AuthKeys.bytes(channel));
    }

    /** Accepts the one expected sender (checking its authenticated hello); returns a non-blocking channel. */
    public static SocketChannel accept(Listener l, AuthKeys keys, int myRank, int peer, int channel, long timeoutNs) {
        return accept(l, keys, myRank, peer, channel, timeoutNs, null);
    }

    /**
     * As above; a non-null {@code health} ends the wait as soon as the communicator fails (the wait is sliced so a
     * lost peer is noticed within {@link #ACCEPT_SLICE_MS}).
     */
    public static SocketChannel accept(Listener l, AuthKeys keys, int myRank, int peer, int channel, long timeoutNs,
                                       CommHealth health) {
        long deadline = System.nanoTime() + timeoutNs;
        try (ServerSocketChannel ss = l.server()) {
            while (true) {
                if (health != null && health.isBroken()) {
                    throw health.brokenError("rank " + myRank + " waiting for rank " + peer + " to connect data channel "
                            + channel);
                }
                long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (leftMs <= 0) {
                    throw new JcclException(Result.TIMEOUT, "rank " + myRank + ": rank " + peer + " did not connect its data "
                            + "channel " + channel + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
                }
                ss.socket().setSoTimeout((int) Math.min(leftMs, health == null ? Integer.MAX_VALUE : ACCEPT_SLICE_MS));
                Socket s;
                try {
                    s = ss.socket().accept();
                } catch (SocketTimeoutException e) {
                    continue;
                }
                SocketChannel ch = s.getChannel();
                try {
                    configure(ch);
                    s.setSoTimeout((int) Math.max(1, Math.min(leftMs, HELLO_TIMEOUT_MS)));
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    byte[] hello = new byte[HELLO_BYTES];
                    in.readFully(hello);
                    if (!checkHello(keys, l.handle().nonce(), peer, channel, hello)) {
                        io.jccl.internal.debug.Log.warn(myRank, "data channel %d: dropped a connection from %s that is "
                                + "not rank %d of this communicator", channel, s.getRemoteSocketAddress(), peer);
                        closeQuietly(ch);
                        continue;
                    }
                    s.setSoTimeout(0);
                    ch.configureBlocking(false);
                    return ch;
                } catch (IOException e) {
                    closeQuietly(ch);
                }
            }
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "rank " + myRank + ": accept of data channel from rank " + peer
                    + " failed: " + e.getMessage(), e);
        }
    }

    private static void configure(SocketChannel ch) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
    }

    static void closeQuietly(java.nio.channels.Channel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
