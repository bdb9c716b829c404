package io.jccl.internal.transport.net.socket;

import io.jccl.UniqueId;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.Tls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link TlsWire} on its own: two ends over loopback, moved without blocking from one thread once their handshake
 * threads are done: the handshake and binding complete, and 3 MiB cross each way intact through reads of every size (a 7-byte read takes what a record
 * left behind); ends holding different secrets fail the binding, naming the peer.
 */
class TlsWireTest {
    @AfterEach
    void restore() {
        System.clearProperty("JCCL_TLS");
    }

    private record Pair(TlsWire client, TlsWire server) {
    }

    private static Pair connect(AuthKeys clientKeys, AuthKeys serverKeys) throws IOException {
        System.setProperty("JCCL_TLS", "on");
        try (ServerSocketChannel ss = ServerSocketChannel.open()) {
            ss.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel c = SocketChannel.open(ss.getLocalAddress());
            SocketChannel s = ss.accept();
            c.configureBlocking(false);
            s.configureBlocking(false);
            Pair p = new Pair(new TlsWire(c, Tls.forComm(clientKeys), true, "server"),
                    new TlsWire(s, Tls.forComm(serverKeys), false, "client"));
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!(p.client().ready() & p.server().ready())) {
                assertThat(System.nanoTime()).as("handshake within 10 s").isLessThan(deadline);
                Thread.onSpinWait();
            }
            return p;
        }
    }

    @Test
    void bytesCrossBothWaysIntact() throws IOException {
        AuthKeys keys = AuthKeys.of(UniqueId.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1)));
        Pair p = connect(keys, keys);
        byte[] a = new byte[3 << 20];
        new Random(1).nextBytes(a);
        byte[] b = new byte[3 << 20];
        new Random(2).nextBytes(b);
        ByteBuffer outA = ByteBuffer.wrap(a);
        ByteBuffer outB = ByteBuffer.wrap(b);
        ByteBuffer inA = ByteBuffer.allocate(a.length);
        ByteBuffer inB = ByteBuffer.allocate(b.length);
        Random sizes = new Random(3);
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (inA.hasRemaining() || inB.hasRemaining() || !p.client().flushed() || !p.server().flushed()) {
            p.client().write(outA);
            p.server().write(outB);
            readSome(p.server(), inA, sizes);
            readSome(p.client(), inB, sizes);
            assertThat(System.nanoTime()).as("3 MiB each way within 20 s").isLessThan(deadline);
        }
        assertThat(inA.array()).isEqualTo(a);
        assertThat(inB.array()).isEqualTo(b);
        assertThat(p.client().buffered()).isFalse();
        assertThat(p.server().buffered()).isFalse();
    }

    private static void readSome(TlsWire w, ByteBuffer in, Random sizes) throws IOException {
        if (!in.hasRemaining()) {
            return;
        }
        int want = Math.min(in.remaining(), sizes.nextBoolean() ? 7 : 1 + sizes.nextInt(40_000));
        ByteBuffer view = in.slice(in.position(), want);
        int n = w.read(view);
        assertThat(n).isGreaterThanOrEqualTo(0);
        in.position(in.position() + n);
    }

    @Test
    void endsWithDifferentSecretsFailTheBinding() {
        assertThatThrownBy(() -> connect(AuthKeys.of(UniqueId.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1))), AuthKeys.of(UniqueId.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1)))))
                .isInstanceOf(IOException.class).hasMessageContaining("TLS with")
                .hasMessageContaining("did not prove this communicator's secret");
    }
}
