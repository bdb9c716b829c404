package io.jccl.internal.bootstrap;

import io.jccl.internal.base.AuthKeys.Purpose;
import io.jccl.internal.base.AuthKeys;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The messages of the two bootstrap handshakes, as pure functions over bytes (so they can be fuzzed without
 * sockets), and their checks.
 *
 * <p>Rank → root: the root sends a {@code CHALLENGE} (16 random bytes); the rank answers a {@code HELLO} = body
 * (magic, rank, nRanks, timeout, listen address, the rank's own nonce, and which of how many roots this is with a
 * digest of the rank's list of ids, see {@link RootGroups}) followed by {@code HMAC(rootKey, "hello", challenge,
 * body)}; once every rank has joined the root answers {@code NEXT} = the addresses of the ranks 1, 2, 4, … ahead
 * followed by {@code HMAC(rootKey, "next", rankNonce, addresses)}, so the rank knows the answer comes from a root
 * that holds the secret. A root of several answers its ranks' ring neighbours instead, under the label
 * "neighbours".
 *
 * <p>Rank → rank: the acceptor sends a {@code PEER_CHALLENGE}; the connector answers {@code PEER_HELLO} = (magic,
 * from, to, nonce) + {@code HMAC(peerKey, "peer-hello", challenge, body)}; the acceptor answers {@code PEER_OK} =
 * {@code HMAC(peerKey, "peer-ok", nonce, challenge)} or {@code PEER_REJECT} with a reason.
 *
 * <p>Owned by: stateless. Mirrors: bootstrap.cc's extInfo exchange, with authentication added.
 */
final class Handshake {
    static final int TAG_CHALLENGE = 0x4a43_4300;
    static final int TAG_HELLO = 0x4a43_4301;
    static final int TAG_NEXT = 0x4a43_4302;
    static final int TAG_ERROR = 0x4a43_4303;
    static final int TAG_PEER_CHALLENGE = 0x4a43_430a;
    static final int TAG_PEER_HELLO = 0x4a43_4310;
    static final int TAG_PEER_OK = 0x4a43_430b;
    static final int TAG_PEER_REJECT = 0x4a43_430c;

    /** Largest handshake frame accepted from a peer that is not authenticated yet. */
    static final int MAX_HANDSHAKE_BYTES = 512;
    /** Largest rank count a hello may claim. */
    static final int MAX_RANKS = 1 << 20;

    static final String WRONG_MAGIC = "wrong magic: this rank's UniqueId belongs to another communicator";
    static final String WRONG_SECRET = "authentication failed: this rank's UniqueId belongs to another communicator "
            + "(same magic, different secret)";

    private Handshake() {
    }

    /** A handshake message that was malformed or failed its checks; {@code getMessage()} says which. */
    public static final class Rejected extends IOException {
        private static final long serialVersionUID = 1L;

        Rejected(String message) {
            super(message);
        }
    }

    /**
     * What a rank tells the root: with several roots, also which root this is ({@code rootIndex} of {@code nRoots})
     * and a digest of the rank's whole list of ids, so ranks given different lists are told so.
     */
    public record RootHello(long magic, int rank, int nRanks, long timeoutMs, InetSocketAddress listen, byte[] nonce,
                            int rootIndex, int nRoots, long idsDigest) {
        /** A hello to the only root. */
        public RootHello(long magic, int rank, int nRanks, long timeoutMs, InetSocketAddress listen, byte[] nonce) {
            this(magic, rank, nRanks, timeoutMs, listen, nonce, 0, 1, 0);
        }

        byte[] body() {
            return encode(d -> {
                d.writeLong(magic);
                d.writeInt(rank);
                d.writeInt(nRanks);
                d.writeLong(timeoutMs);
                Frames.writeAddress(d, listen);
                d.write(nonce);
                d.writeInt(rootIndex);
                d.writeInt(nRoots);
                d.writeLong(idsDigest);
            });
        }
    }

    /** What a rank tells a peer it connects to. */
    public record PeerHello(long magic, int from, int to, byte[] nonce) {
        byte[] body() {
            return encode(d -> {
                d.writeLong(magic);
                d.writeInt(from);
                d.writeInt(to);
                d.write(nonce);
            });
        }
    }

    // ---- rank → root ----------------------------------------------------------------------------------

    /** The payload of a rank's HELLO answering {@code challenge}. */
    static byte[] signRootHello(AuthKeys keys, byte[] challenge, RootHello h) {
        byte[] body = h.body();
        return concat(body, keys.mac(Purpose.ROOT, tag("hello"), challenge, body));
    }

    /** Parses and authenticates a HELLO; throws {@link Rejected} with the reason the rank will be told. */
    public static RootHello openRootHello(AuthKeys keys, byte[] challenge, byte[] payload) throws Rejected {
        if (payload.length <= AuthKeys.MAC_BYTES) {
            throw new Rejected("not a JCCL bootstrap hello (" + payload.length + " bytes)");
        }
        byte[] body = Arrays.copyOf(payload, payload.length - AuthKeys.MAC_BYTES);
        byte[] mac = Arrays.copyOfRange(payload, body.length, payload.length);
        RootHello h;
        try {
            DataInputStream d = in(body);
            long magic = d.readLong();
            int rank = d.readInt();
            int nRanks = d.readInt();
            long timeoutMs = d.readLong();
            InetSocketAddress listen = Frames.readAddress(d);
            byte[] nonce = new byte[AuthKeys.NONCE_BYTES];
            d.readFully(nonce);
            int rootIndex = d.readInt();
            int nRoots = d.readInt();
            long idsDigest = d.readLong();
            if (d.available() != 0) {
                throw new Rejected("not a JCCL bootstrap hello (" + d.available() + " trailing bytes)");
            }
            h = new RootHello(magic, rank, nRanks, timeoutMs, listen, nonce, rootIndex, nRoots, idsDigest);
        } catch (Rejected e) {
            throw e;
        } catch (IOException e) {
            throw new Rejected("not a JCCL bootstrap hello (" + e.getMessage() + ")");
        }
        if (h.magic() != keys.magic()) {
            throw new Rejected(WRONG_MAGIC);
        }
        if (!keys.verify(Purpose.ROOT, mac, tag("hello"), challenge, body)) {
            throw new Rejected(WRONG_SECRET);
        }
        if (h.nRanks() < 1 || h.nRanks() > MAX_RANKS || h.rank() < 0 || h.rank() >= h.nRanks() || h.timeoutMs() < 0) {
            throw new Rejected("bad rank " + h.rank() + " / nRanks " + h.nRanks() + " / timeout " + h.timeoutMs());
        }
        if (h.nRoots() < 1 || h.nRoots() > h.nRanks() || h.rootIndex() < 0 || h.rootIndex() >= h.nRoots()) {
            throw new Rejected("bad root " + h.rootIndex() + " of " + h.nRoots() + " for " + h.nRanks() + " ranks");
        }
        return h;
    }

    /** The payload of the root's NEXT answer to a rank whose hello carried {@code rankNonce}. */
    static byte[] signNext(AuthKeys keys, byte[] rankNonce, InetSocketAddress next) {
        return signAhead(keys, rankNonce, new InetSocketAddress[] {next});
    }

    /**
     * The root's NEXT answer carrying the listen addresses of the ranks at distance 1, 2, 4, … ahead of the rank
     * (what the log2(n)-step address allGather sends to).
     */
    static byte[] signAhead(AuthKeys keys, byte[] rankNonce, InetSocketAddress[] ahead) {
        byte[] body = encode(d -> {
            d.writeShort(ahead.length);
            for (InetSocketAddress a : ahead) {
                Frames.writeAddress(d, a);
            }
        });
        return concat(body, keys.mac(Purpose.ROOT, tag("next"), rankNonce, body));
    }

    /** Parses and authenticates the root's NEXT answer: the ring successor's address. */
    public static InetSocketAddress openNext(AuthKeys keys, byte[] rankNonce, byte[] payload) throws Rejected {
        return openAhead(keys, rankNonce, payload)[0];
    }

    /** Parses and authenticates the root's NEXT answer: the addresses of the ranks 1, 2, 4, … ahead. */
    public static InetSocketAddress[] openAhead(AuthKeys keys, byte[] rankNonce, byte[] payload) throws Rejected {
        if (payload.length <= AuthKeys.MAC_BYTES) {
            throw new Rejected("malformed answer from the bootstrap root (" + payload.length + " bytes)");
        }
        byte[] body = Arrays.copyOf(payload, payload.length - AuthKeys.MAC_BYTES);
        byte[] mac = Arrays.copyOfRange(payload, body.length, payload.length);
        if (!keys.verify(Purpose.ROOT, mac, tag("next"), rankNonce, body)) {
            throw new Rejected("the bootstrap root's answer is not signed with this UniqueId's secret: the root at "
                    + "that "
                    + "address belongs to another communicator");
        }
        try {
            DataInputStream d = in(body);
            int count = d.readUnsignedShort();
            if (count < 1 || count > 32) {
                throw new Rejected("malformed answer from the bootstrap root (" + count + " addresses)");
            }
            InetSocketAddress[] out = new InetSocketAddress[count];
            for (int i = 0; i < count; i++) {
                out[i] = Frames.readAddress(d);
                if (out[i].getPort() == 0) {
                    throw new Rejected("malformed address from the bootstrap root");
                }
            }
            if (d.available() != 0) {
                throw new Rejected("malformed address from the bootstrap root");
            }
            return out;
        } catch (Rejected e) {
            throw e;
        } catch (IOException e) {
            throw new Rejected("malformed address from the bootstrap root (" + e.getMessage() + ")");
        }
    }

    /**
     * A root of several's answer to a rank whose hello carried {@code rankNonce}: the listen addresses of the rank's
     * ring successor and predecessor, either null where this root does not know it (another root tells the rank).
     */
    static byte[] signNeighbours(AuthKeys keys, byte[] rankNonce, InetSocketAddress next, InetSocketAddress prev) {
        byte[] body = encode(d -> {
            for (InetSocketAddress a : new InetSocketAddress[] {next, prev}) {
                d.writeBoolean(a != null);
                if (a != null) {
                    Frames.writeAddress(d, a);
                }
            }
        });
        return concat(body, keys.mac(Purpose.ROOT, tag("neighbours"), rankNonce, body));
    }

    /** Parses and authenticates a root's neighbours answer: {next, prev}, either possibly null. */
    static InetSocketAddress[] openNeighbours(AuthKeys keys, byte[] rankNonce, byte[] payload) throws Rejected {
        if (payload.length <= AuthKeys.MAC_BYTES) {
            throw new Rejected("malformed answer from the bootstrap root (" + payload.length + " bytes)");
        }
        byte[] body = Arrays.copyOf(payload, payload.length - AuthKeys.MAC_BYTES);
        byte[] mac = Arrays.copyOfRange(payload, body.length, payload.length);
        if (!keys.verify(Purpose.ROOT, mac, tag("neighbours"), rankNonce, body)) {
            throw new Rejected("the bootstrap root's answer is not signed with this UniqueId's secret: the root at "
                    + "that address belongs to another communicator");
        }
        try {
            DataInputStream d = in(body);
            InetSocketAddress[] out = new InetSocketAddress[2];
            for (int i = 0; i < 2; i++) {
                if (d.readBoolean()) {
                    out[i] = Frames.readAddress(d);
                    if (out[i].getPort() == 0) {
                        throw new Rejected("malformed address from the bootstrap root");
                    }
                }
            }
            if (d.available() != 0) {
                throw new Rejected("malformed answer from the bootstrap root");
            }
            return out;
        } catch (Rejected e) {
            throw e;
        } catch (IOException e) {
            throw new Rejected("malformed answer from the bootstrap root (" + e.getMessage() + ")");
        }
    }

    // ---- rank → rank ----------------------------------------------------------------------------------

    /** The payload of a PEER_HELLO answering {@code challenge}. */
    static byte[] signPeerHello(AuthKeys keys, byte[] challenge, PeerHello h) {
        byte[] body = h.body();
        return concat(body, keys.mac(Purpose.PEER, tag("peer-hello"), challenge, body));
    }

    /** Parses and authenticates a PEER_HELLO addressed to {@code myRank} of a communicator of {@code nRanks}. */
    public static PeerHello openPeerHello(AuthKeys keys, byte[] challenge, byte[] payload, int myRank, int nRanks)
            throws Rejected {
        int bodyBytes = 8 + 4 + 4 + AuthKeys.NONCE_BYTES;
        if (payload.length != bodyBytes + AuthKeys.MAC_BYTES) {
            throw new Rejected("not a JCCL peer hello (" + payload.length + " bytes)");
        }
        byte[] body = Arrays.copyOf(payload, bodyBytes);
        byte[] mac = Arrays.copyOfRange(payload, bodyBytes, payload.length);
        PeerHello h;
        try {
            DataInputStream d = in(body);
            long magic = d.readLong();
            int from = d.readInt();
            int to = d.readInt();
            byte[] nonce = new byte[AuthKeys.NONCE_BYTES];
            d.readFully(nonce);
            h = new PeerHello(magic, from, to, nonce);
        } catch (IOException e) {
            throw new Rejected("not a JCCL peer hello (" + e.getMessage() + ")");
        }
        if (h.magic() != keys.magic()) {
            throw new Rejected(WRONG_MAGIC);
        }
        if (!keys.verify(Purpose.PEER, mac, tag("peer-hello"), challenge, body)) {
            throw new Rejected(WRONG_SECRET);
        }
        if (h.to() != myRank || h.from() < 0 || h.from() >= nRanks) {
            throw new Rejected("peer hello from rank " + h.from() + " to rank " + h.to() + " reached rank " + myRank
                    + " of " + nRanks);
        }
        return h;
    }

    /** The acceptor's PEER_OK, proving it holds the secret too. */
    static byte[] signPeerOk(AuthKeys keys, byte[] helloNonce, byte[] challenge) {
        return keys.mac(Purpose.PEER, tag("peer-ok"), helloNonce, challenge);
    }

    /** Checks a PEER_OK. */
    static void checkPeerOk(AuthKeys keys, byte[] helloNonce, byte[] challenge, byte[] payload) throws Rejected {
        if (!keys.verify(Purpose.PEER, payload, tag("peer-ok"), helloNonce, challenge)) {
            throw new Rejected("the peer's answer is not signed with this UniqueId's secret (another communicator "
                    + "listens at that address)");
        }
    }

    /** A reason text from an ERROR or REJECT frame, shortened and stripped of control characters. */
    static String reason(byte[] payload) {
        String s = new String(payload, 0, Math.min(payload.length, MAX_HANDSHAKE_BYTES), StandardCharsets.UTF_8);
        return s.replaceAll("\\p{Cntrl}", "?");
    }

    private static byte[] tag(String label) {
        return label.getBytes(StandardCharsets.UTF_8);
    }

    private interface Writer {
        void write(DataOutputStream d) throws IOException;
    }

    private static byte[] encode(Writer w) {
        try {
            ByteArrayOutputStream bos = new ByteArrayOutputStream(64);
            DataOutputStream d = new DataOutputStream(bos);
            w.write(d);
            return bos.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static DataInputStream in(byte[] b) {
        return new DataInputStream(new ByteArrayInputStream(b));
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
