package io.jccl.internal.bootstrap;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.comm.PeerInfo;
import io.jccl.internal.ras.RasMessages;
import io.jccl.internal.ras.RasServer;
import io.jccl.internal.transport.net.NetHello;
import io.jccl.internal.transport.net.NetOffer;
import io.jccl.internal.transport.shm.ShmTransport;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 100,000 random and mutated inputs through every parser of bytes that arrive from the network: bootstrap frames,
 * root and peer hellos, the root's answer, goodbyes, data-connection handles and hellos, peer infos, shm offers,
 * unique ids, heartbeats, lost-rank notices and status requests. Each parser must return a value or throw its
 * documented exception, never anything else (no IndexOutOfBounds, NegativeArraySize, OutOfMemory); and an
 * authenticated message that differs from a correctly signed one in any byte must be rejected. Seeded, so a failure
 * reproduces.
 */
class ParserFuzzTest {
    static final int CASES = 100_000;
    static final long SEED = 0x5eed_1bcc_1L;

    /** One parser: feeds it an input; returns true if it accepted it; throws only on a property violation. */
    interface Target {
        boolean accepts(byte[] input) throws Exception;
    }

    /** A parser with a valid input to mutate and whether mutations must be rejected (MAC-protected). */
    record Case(String name, byte[] valid, boolean authenticated, Target target) {
    }

    private final Random rnd = new Random(SEED);
    private final UniqueId id = UniqueId.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 29500));
    private final AuthKeys keys = AuthKeys.of(id);
    private final byte[] challenge = AuthKeys.nonce();
    private final byte[] nonce = AuthKeys.nonce();

    List<Case> cases() throws IOException {
        List<Case> l = new ArrayList<>();
        InetSocketAddress a = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40123);
        byte[] frame = frame(Bootstrap.TAG_ALLGATHER, "hello".getBytes());
        l.add(new Case("bootstrap frame", frame, false, in -> {
            try {
                Frames.Frame f = Frames.read(new DataInputStream(new ByteArrayInputStream(in)), 4096);
                assertThat(f.payload().length).isLessThanOrEqualTo(4096);
                return true;
            } catch (IOException e) {
                return false;
            }
        }));
        byte[] hello = Handshake.signRootHello(keys, challenge, new Handshake.RootHello(keys.magic(), 3, 8, 5000, a, nonce));
        l.add(new Case("root hello", hello, true, in -> rejectsWith(() -> Handshake.openRootHello(keys, challenge, in))));
        byte[] next = Handshake.signNext(keys, nonce, a);
        l.add(new Case("root answer", next, true, in -> rejectsWith(() -> Handshake.openNext(keys, nonce, in))));
        byte[] groupHello = Handshake.signRootHello(keys, challenge, new Handshake.RootHello(keys.magic(), 3, 8, 5000, a,
                nonce, 1, 3, 0x1234_5678_9abcL));
        l.add(new Case("root hello of a group", groupHello, true,
                in -> rejectsWith(() -> Handshake.openRootHello(keys, challenge, in))));
        byte[] neighbours = Handshake.signNeighbours(keys, nonce, a, null);
        l.add(new Case("root neighbours answer", neighbours, true,
                in -> rejectsWith(() -> Handshake.openNeighbours(keys, nonce, in))));
        byte[] peer = Handshake.signPeerHello(keys, challenge, new Handshake.PeerHello(keys.magic(), 2, 5, nonce));
        l.add(new Case("peer hello", peer, true, in -> rejectsWith(() -> Handshake.openPeerHello(keys, challenge, in, 5, 8))));
        byte[] ok = Handshake.signPeerOk(keys, nonce, challenge);
        l.add(new Case("peer ok", ok, true, in -> rejectsWith(() -> {
            Handshake.checkPeerOk(keys, nonce, challenge, in);
            return true;
        })));
        l.add(new Case("goodbye", new Goodbye(Goodbye.Departure.ORDERLY, "closed").encode(), false, in -> {
            Goodbye g = Goodbye.decode(in);      // never throws: a bad goodbye still means the peer left
            assertThat(g.kind()).isNotNull();
            assertThat(g.reason()).doesNotContainPattern("\\p{Cntrl}");
            return true;
        }));
        l.add(new Case("address", address(a), false, in -> {
            try {
                Frames.readAddress(new DataInputStream(new ByteArrayInputStream(in)));
                return true;
            } catch (IOException e) {
                return false;
            }
        }));
        NetOffer h = new NetOffer(0x1234_5678_9abcL, 1 << 16, true, address(a));
        l.add(new Case("net offer", h.toBytes(), false, in -> throwsOnly(() -> NetOffer.fromBytes(in),
                Result.INTERNAL_ERROR)));
        byte[] netHello = NetHello.hello(keys, h.nonce(), 4, 2);
        l.add(new Case("net hello", netHello, true, in -> NetHello.check(keys, h.nonce(), 4, 2, in)));
        l.add(new Case("peer info", PeerInfo.local(1, "0.1.0", 1, 4, 65536, 65536).encode(), false,
                in -> throwsOnly(() -> PeerInfo.decode(in),
                Result.INTERNAL_ERROR)));
        l.add(new Case("shm offer", shmOffer("jccl-abc-r1-from0-c0", 65536), false,
                in -> throwsOnly(() -> ShmTransport.Info.decode(in, 1), Result.INTERNAL_ERROR, Result.REMOTE_ERROR)));
        l.add(new Case("unique id", id.toBytes(), false, in -> throwsOnly(() -> {
            UniqueId u = UniqueId.fromBytes(in);
            u.rootAddress();
            u.secret();
            return u;
        }, Result.INVALID_ARGUMENT)));
        l.add(new Case("heartbeat", new RasMessages.PeerStatus(58, 57, Collective.ALL_REDUCE, 1200,
                "rank 0 receiving from rank 3").encode(), false,
                in -> throwsOnly(() -> RasMessages.PeerStatus.decode(in), Result.REMOTE_ERROR)));
        l.add(new Case("lost notice", new RasMessages.LostNotice(3, Result.TIMEOUT, true, "silent").encode(), false,
                in -> throwsOnly(() -> RasMessages.LostNotice.decode(in, 8), Result.REMOTE_ERROR)));
        l.add(new Case("status request", "status".getBytes(), false, in -> RasServer.Command.parse(in, in.length) != null));
        return l;
    }

    @Test
    void everyParserSurvivesRandomAndMutatedInputs() throws Exception {
        List<Case> cases = cases();
        Map<String, int[]> stats = new LinkedHashMap<>();
        for (Case c : cases) {
            assertThat(c.target().accepts(c.valid())).as("%s accepts its valid input", c.name()).isTrue();
            stats.put(c.name(), new int[2]);
        }
        for (int i = 0; i < CASES; i++) {
            Case c = cases.get(i % cases.size());
            boolean mutate = rnd.nextBoolean();
            byte[] in = mutate ? mutate(c.valid()) : randomBytes();
            boolean accepted;
            try {
                accepted = c.target().accepts(in);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("case " + i + " (" + c.name() + ", " + (mutate ? "mutated" : "random")
                        + ") input " + java.util.HexFormat.of().formatHex(in) + ": " + e, e);
            }
            if (accepted && c.authenticated() && !Arrays.equals(in, c.valid())) {
                throw new AssertionError("case " + i + ": " + c.name() + " accepted a forged input "
                        + java.util.HexFormat.of().formatHex(in));
            }
            stats.get(c.name())[accepted ? 0 : 1]++;
        }
        int total = stats.values().stream().mapToInt(s -> s[0] + s[1]).sum();
        assertThat(total).isEqualTo(CASES);
        stats.forEach((k, v) -> System.out.printf("fuzz %-16s accepted %6d rejected %6d%n", k, v[0], v[1]));
    }

    /** Runs {@code p}: true if it returned, false if it threw a JcclException of one of {@code allowed}. */
    static boolean throwsOnly(java.util.concurrent.Callable<?> p, Result... allowed) throws Exception {
        try {
            p.call();
            return true;
        } catch (JcclException e) {
            assertThat(e.result()).isIn((Object[]) allowed);
            return false;
        }
    }

    /** Runs a handshake check: true if it accepted, false if it threw {@link Handshake.Rejected}. */
    static boolean rejectsWith(java.util.concurrent.Callable<?> p) throws Exception {
        try {
            p.call();
            return true;
        } catch (Handshake.Rejected e) {
            assertThat(e.getMessage()).isNotBlank();
            return false;
        }
    }

    byte[] randomBytes() {
        int len = switch (rnd.nextInt(4)) {
            case 0 -> rnd.nextInt(8);
            case 1 -> rnd.nextInt(64);
            case 2 -> rnd.nextInt(300);
            default -> rnd.nextInt(2000);
        };
        byte[] b = new byte[len];
        rnd.nextBytes(b);
        return b;
    }

    /** One to four of: flip a bit, set a byte to an edge value, truncate, extend, insert, delete, or a huge length. */
    byte[] mutate(byte[] valid) {
        byte[] b = valid.clone();
        int n = 1 + rnd.nextInt(4);
        for (int k = 0; k < n; k++) {
            int op = rnd.nextInt(8);
            if (b.length == 0) {
                op = 4;
            }
            switch (op) {
                case 0 -> b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
                case 1 -> b[rnd.nextInt(b.length)] = (byte) new int[] {0, 0x7f, 0x80, 0xff, 1, 4, 16}[rnd.nextInt(7)];
                case 2 -> b = Arrays.copyOf(b, rnd.nextInt(b.length));
                case 3 -> {
                    int at = rnd.nextInt(b.length);
                    byte[] c = new byte[b.length - 1];
                    System.arraycopy(b, 0, c, 0, at);
                    System.arraycopy(b, at + 1, c, at, b.length - at - 1);
                    b = c;
                }
                case 4 -> {
                    byte[] extra = new byte[1 + rnd.nextInt(40)];
                    rnd.nextBytes(extra);
                    byte[] c = Arrays.copyOf(b, b.length + extra.length);
                    System.arraycopy(extra, 0, c, b.length, extra.length);
                    b = c;
                }
                case 5 -> {
                    int at = rnd.nextInt(b.length + 1);
                    byte[] c = new byte[b.length + 1];
                    System.arraycopy(b, 0, c, 0, at);
                    c[at] = (byte) rnd.nextInt();
                    System.arraycopy(b, at, c, at + 1, b.length - at);
                    b = c;
                }
                case 6 -> {
                    if (b.length >= 4) {
                        int at = rnd.nextInt(b.length - 3);
                        int v = new int[] {-1, Integer.MAX_VALUE, Integer.MIN_VALUE, 1 << 30, 65536}[rnd.nextInt(5)];
                        b[at] = (byte) (v >>> 24);
                        b[at + 1] = (byte) (v >>> 16);
                        b[at + 2] = (byte) (v >>> 8);
                        b[at + 3] = (byte) v;
                    }
                }
                default -> {
                    if (b.length >= 2) {
                        int at = rnd.nextInt(b.length - 1);
                        b[at] = (byte) 0xff;
                        b[at + 1] = (byte) 0xff;      // a UTF length prefix of 65535
                    }
                }
            }
        }
        return b;
    }

    static byte[] frame(int tag, byte[] payload) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        Frames.write(new DataOutputStream(bos), tag, payload);
        return bos.toByteArray();
    }

    static byte[] address(InetSocketAddress a) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        Frames.writeAddress(new DataOutputStream(bos), a);
        return bos.toByteArray();
    }

    static byte[] shmOffer(String name, int stepBytes) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(bos);
        d.writeUTF(name);
        d.writeInt(stepBytes);
        return bos.toByteArray();
    }
}
