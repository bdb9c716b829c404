package io.jccl.internal.bootstrap;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.IdlePolicy;
import io.jccl.internal.proxy.ProxyThread;
import io.jccl.internal.transport.RecvConn;
import io.jccl.internal.transport.SendConn;
import io.jccl.internal.transport.Transport;
import io.jccl.internal.transport.net.NetHello;
import io.jccl.internal.transport.net.NetOffer;
import io.jccl.internal.transport.net.NetTransport;
import io.jccl.internal.transport.net.socket.NetInterfaces;
import io.jccl.internal.transport.net.socket.SocketNetPlugin;
import io.jccl.net.NetPlugin;
import org.junit.jupiter.api.Test;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Live sockets: garbage, oversized, silent, slow and forged clients against the bootstrap root, a rank's bootstrap
 * listener and a data-connection listener. Real ranks must still get through, forged ones must be told they belong
 * to another communicator, and nothing may crash or stall.
 */
class BootstrapAttackTest {
    static final Config CFG = Config.defaults().withTimeout(Duration.ofSeconds(20));

    @Test
    void theRootServesRealRanksWhileGarbageOversizedSilentSlowAndForgedClientsAttack() throws Exception {
        UniqueId id = Jccl.uniqueId();
        InetSocketAddress root = id.rootAddress();
        AuthKeys forged = AuthKeys.of(UniqueId.create(root, id.magic(), new byte[32]));
        List<Socket> held = new ArrayList<>();
        ConcurrentLinkedQueue<String> forgedAnswers = new ConcurrentLinkedQueue<>();
        List<Thread> attackers = new ArrayList<>();
        Random rnd = new Random(7);
        try {
            for (int i = 0; i < 40; i++) {                      // silent: connect and say nothing
                Socket s = new Socket();
                s.connect(root, 2000);
                held.add(s);
            }
            for (int i = 0; i < 100; i++) {                     // garbage
                byte[] junk = new byte[1 + rnd.nextInt(200)];
                rnd.nextBytes(junk);
                attackers.add(Thread.ofVirtual().start(() -> sendAndClose(root, junk)));
            }
            for (int i = 0; i < 30; i++) {                      // oversized frame header after the challenge
                attackers.add(Thread.ofVirtual().start(() -> {
                    try (Socket s = new Socket()) {
                        s.connect(root, 2000);
                        readFrame(s);
                        DataOutputStream out = new DataOutputStream(s.getOutputStream());
                        out.writeInt(Handshake.TAG_HELLO);
                        out.writeInt(Integer.MAX_VALUE);
                        out.flush();
                        s.setSoTimeout(10_000);
                        s.getInputStream().read();             // the root hangs up
                    } catch (IOException ignored) {
                        // dropped, as expected
                    }
                }));
            }
            for (int i = 0; i < 10; i++) {                      // slow loris: a byte every 300 ms
                attackers.add(Thread.ofVirtual().start(() -> {
                    try (Socket s = new Socket()) {
                        s.connect(root, 2000);
                        for (int k = 0; k < 40; k++) {
                            s.getOutputStream().write(k);
                            s.getOutputStream().flush();
                            Thread.sleep(300);
                        }
                    } catch (IOException | InterruptedException ignored) {
                        // dropped after the handshake deadline
                    }
                }));
            }
            for (int i = 0; i < 10; i++) {                      // forged: right magic, wrong secret
                attackers.add(Thread.ofVirtual().start(() -> {
                    try (Socket s = new Socket()) {
                        s.connect(root, 2000);
                        Frames.Frame c = readFrame(s);
                        byte[] hello = Handshake.signRootHello(forged, c.payload(), new Handshake.RootHello(
                                id.magic(), 0, 4, 5000, new InetSocketAddress(InetAddress.getLoopbackAddress(), 1),
                                AuthKeys.nonce()));
                        Frames.write(new DataOutputStream(s.getOutputStream()), Handshake.TAG_HELLO, hello);
                        Frames.Frame answer = readFrame(s);
                        forgedAnswers.add(Integer.toHexString(answer.tag()) + " "
                                + new String(answer.payload(), StandardCharsets.UTF_8));
                    } catch (IOException e) {
                        forgedAnswers.add("io: " + e.getMessage());
                    }
                }));
            }
            // the root stops serving once every real rank joined: let the forged clients get their answer first
            // (under load their virtual threads ran after the ranks had joined and saw the root's reset instead)
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (forgedAnswers.size() < 10 && System.nanoTime() < until) {
                Thread.sleep(5);
            }
            long t0 = System.nanoTime();
            List<CompletableFuture<float[]>> ranks = new ArrayList<>();
            for (int r = 0; r < 4; r++) {
                int rank = r;
                ranks.add(CompletableFuture.supplyAsync(() -> {
                    try (Communicator c = Communicator.init(id, 4, rank, CFG)) {
                        float[] d = {rank, 1};
                        c.allReduce(d, RedOp.SUM);
                        return d;
                    }
                }, r2 -> Thread.ofPlatform().start(r2)));
            }
            for (CompletableFuture<float[]> f : ranks) {
                assertThat(f.get(30, TimeUnit.SECONDS)).containsExactly(6f, 4f);
            }
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            System.out.println("4 ranks joined and reduced in " + ms + " ms under attack");
            assertThat(ms).as("silent clients (held open) did not stall the root").isLessThan(15_000);
            for (Thread t : attackers) {
                t.join(20_000);
            }
            assertThat(forgedAnswers).hasSize(10).allSatisfy(a -> assertThat(a)
                    .startsWith(Integer.toHexString(Handshake.TAG_ERROR)).contains("another communicator"));
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void aRankWithTheRightMagicButAnotherSecretIsToldItBelongsToAnotherCommunicator() {
        UniqueId id = Jccl.uniqueId();
        UniqueId forged = UniqueId.create(id.rootAddress(), id.magic(), new byte[32]);
        assertThatThrownBy(() -> Communicator.init(forged, 2, 0, Config.defaults().withTimeout(Duration.ofSeconds(5))))
                .isInstanceOf(JcclException.class).hasMessageContaining("another communicator")
                .extracting(e -> ((JcclException) e).result()).isEqualTo(Result.INVALID_USAGE);
    }

    @Test
    void aRanksBootstrapListenerRejectsStrangersAndKeepsWorking() throws Exception {
        UniqueId id = Jccl.uniqueId();
        long timeoutNs = TimeUnit.SECONDS.toNanos(20);
        CompletableFuture<Bootstrap> f1 = CompletableFuture.supplyAsync(() -> Bootstrap.init(id, 1, 2, timeoutNs),
                r -> Thread.ofPlatform().start(r));
        try (Bootstrap b0 = Bootstrap.init(id, 0, 2, timeoutNs); Bootstrap b1 = f1.get(30, TimeUnit.SECONDS)) {
            AtomicInteger departures = new AtomicInteger();
            b0.onDeparture((p, k, why) -> departures.incrementAndGet());
            InetSocketAddress target = b0.address(0);
            Random rnd = new Random(11);
            for (int i = 0; i < 50; i++) {
                byte[] junk = new byte[1 + rnd.nextInt(300)];
                rnd.nextBytes(junk);
                sendAndClose(target, junk);
            }
            AuthKeys other = AuthKeys.of(UniqueId.create(id.rootAddress(), id.magic(), new byte[32]));
            try (Socket s = new Socket()) {
                s.connect(target, 2000);
                Frames.Frame c = readFrame(s);
                Frames.write(new DataOutputStream(s.getOutputStream()), Handshake.TAG_PEER_HELLO,
                        Handshake.signPeerHello(other, c.payload(), new Handshake.PeerHello(id.magic(), 1, 0, AuthKeys.nonce())));
                Frames.Frame answer = readFrame(s);
                assertThat(answer.tag()).isEqualTo(Handshake.TAG_PEER_REJECT);
                assertThat(new String(answer.payload(), StandardCharsets.UTF_8)).contains("another communicator");
            }
            try (Socket s = new Socket()) {                     // oversized hello
                s.connect(target, 2000);
                readFrame(s);
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeInt(Handshake.TAG_PEER_HELLO);
                out.writeInt(1 << 30);
                out.flush();
                s.setSoTimeout(10_000);
                assertThat(s.getInputStream().read()).isEqualTo(-1);
            }
            b1.send(0, 0x1234, "still here".getBytes(StandardCharsets.UTF_8));
            assertThat(new String(b0.recv(1, 0x1234, "test message"), StandardCharsets.UTF_8)).isEqualTo("still here");
            assertThat(departures.get()).as("strangers are not peers that left").isZero();
        }
    }

    @Test
    void aDataListenerDropsStrangersAndForgedHellosThenAcceptsTheRealSender() throws Exception {
        AuthKeys keys = AuthKeys.of(Jccl.uniqueId());
        AuthKeys other = AuthKeys.of(UniqueId.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1),
                keys.magic(), new byte[32]));
        CommHealth h0 = new CommHealth(2);
        CommHealth h1 = new CommHealth(2);
        ProxyThread p0 = new ProxyThread(h0, 0, "attack-proxy-0", 0);
        ProxyThread p1 = new ProxyThread(h1, 1, "attack-proxy-1", 0);
        try (Arena arena = Arena.ofShared()) {
            NetPlugin plugin = new SocketNetPlugin(List.of(new NetInterfaces.IfAddress("lo",
                    InetAddress.getLoopbackAddress())), 0, null);
            long timeoutNs = TimeUnit.SECONDS.toNanos(30);
            NetTransport t0 = new NetTransport(arena, p0, h0, plugin, 0, keys, 0, timeoutNs, IdlePolicy.defaults(), true);
            NetTransport t1 = new NetTransport(arena, p1, h1, plugin, 0, keys, 1, timeoutNs, IdlePolicy.defaults(), true);
            Transport.PendingRecv pending = t0.setupRecv(1, 3, 65536);
            NetOffer offer = NetOffer.fromBytes(pending.info());
            CompletableFuture<RecvConn> accepted = CompletableFuture.supplyAsync(pending::complete,
                    r -> Thread.ofPlatform().start(r));
            ByteBuffer handle = ByteBuffer.wrap(offer.handle());
            byte[] ip = new byte[handle.get()];
            handle.get(ip);
            InetSocketAddress at = new InetSocketAddress(InetAddress.getByAddress(ip), handle.getShort() & 0xffff);
            long magic = handle.getLong();
            try (Socket silent = new Socket()) {
                silent.connect(at, 2000);                          // says nothing: dropped after the intro deadline
                sendAndClose(at, new byte[40]);                    // wrong magic: dropped by the plugin
                sendAndClose(at, forged(magic, NetHello.hello(other, offer.nonce(), 1, 3)));
                sendAndClose(at, forged(magic, NetHello.hello(keys, offer.nonce() + 1, 1, 3)));
                sendAndClose(at, forged(magic, NetHello.hello(keys, offer.nonce(), 2, 3)));
                SendConn real = t1.connectSend(0, 3, pending.info());
                RecvConn got = accepted.get(30, TimeUnit.SECONDS);
                assertThat(real).isNotNull();
                assertThat(got).isNotNull();
                assertThat(h0.isBroken()).as("forged hellos do not break the communicator").isFalse();
            }
        } finally {
            p0.stop();
            p1.stop();
        }
    }

    /** What a stranger that learnt the plugin handle sends: the socket intro, then a hello as message 0. */
    private static byte[] forged(long magic, byte[] hello) {
        return ByteBuffer.allocate(12 + 8 + hello.length).putLong(magic).putInt(0).putInt(hello.length)
                .putInt(NetHello.TAG).put(hello).array();
    }

    private static void sendAndClose(InetSocketAddress to, byte[] bytes) {
        try (Socket s = new Socket()) {
            s.connect(to, 2000);
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
        } catch (IOException ignored) {
            // the other side may hang up first
        }
    }

    private static Frames.Frame readFrame(Socket s) throws IOException {
        s.setSoTimeout(10_000);
        return Frames.read(new DataInputStream(new BufferedInputStream(s.getInputStream())), 1 << 16);
    }
}
