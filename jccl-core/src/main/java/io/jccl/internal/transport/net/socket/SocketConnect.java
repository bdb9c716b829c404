package io.jccl.internal.transport.net.socket;

import io.jccl.internal.base.Tls;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A connection being made, one {@link SocketNetPlugin#connect} call at a time: opens the control socket and the data
 * sockets without blocking, retries a refused connection a few times, then sends each socket's introduction
 * (magic, index); under {@code JCCL_TLS} each socket is handed over as a {@link TlsWire}, whose handshake and binding
 * run with its first reads and writes.
 *
 * <p>Owned by: the thread setting up connections. Mirrors: net_socket.cc's non-blocking connect stages.
 */
final class SocketConnect {
    private static final int MAX_REFUSED = 50;
    private static final long RETRY_NS = 20_000_000L;

    private final SocketHandle handle;
    private final int nThreads;
    private final Tls tls;
    private final SocketChannel[] socks;
    private final ByteBuffer[] intros;
    private final long[] retryAtNs;
    private int refused;

    SocketConnect(SocketHandle handle, int nThreads, Tls tls) throws IOException {
        this.handle = handle;
        this.nThreads = nThreads;
        this.tls = tls;
        int n = 1 + handle.dataSocks();
        socks = new SocketChannel[n];
        intros = new ByteBuffer[n];
        retryAtNs = new long[n];
        for (int i = 0; i < n; i++) {
            intros[i] = ByteBuffer.allocate(SocketListen.INTRO_BYTES).putLong(handle.magic()).putInt(i).flip();
            open(i);
        }
    }

    private void open(int i) throws IOException {
        SocketChannel ch = SocketChannel.open();
        ch.configureBlocking(false);
        SocketNetPlugin.configure(ch);
        ch.connect(handle.address());
        socks[i] = ch;
    }

    /** One non-blocking step; the comm once every socket is connected and introduced, else null. */
    SocketComm advance() throws IOException {
        boolean all = true;
        for (int i = 0; i < socks.length; i++) {
            if (socks[i] == null) {
                if (System.nanoTime() < retryAtNs[i]) {
                    all = false;
                    continue;
                }
                open(i);
            }
            SocketChannel ch = socks[i];
            try {
                if (ch.isConnectionPending() && !ch.finishConnect()) {
                    all = false;
                    continue;
                }
            } catch (ConnectException e) {
                ch.close();
                socks[i] = null;
                if (++refused > MAX_REFUSED) {
                    throw new IOException("connection to " + handle.address() + " refused " + refused + " times", e);
                }
                retryAtNs[i] = System.nanoTime() + RETRY_NS;
                all = false;
                continue;
            }
            if (intros[i].hasRemaining()) {
                ch.write(intros[i]);
                all &= !intros[i].hasRemaining();
            }
        }
        if (!all) {
            return null;
        }
        Wire[] w = new Wire[socks.length];
        for (int i = 0; i < w.length; i++) {
            w[i] = tls == null ? Wire.plain(socks[i]) : new TlsWire(socks[i], tls, true, "the listener at "
                    + handle.address());
        }
        return new SocketComm(true, w[0], java.util.Arrays.copyOfRange(w, 1, w.length), nThreads,
                String.valueOf(handle.address()));
    }


    void abandon() {
        for (SocketChannel ch : socks) {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // abandoning
                }
            }
        }
    }
}
