package io.jccl.internal.transport.net.socket;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A connection being made, one {@link SocketNetPlugin#connect} call at a time: opens the control socket and the data
 * sockets without blocking, retries a refused connection a few times, then sends each socket's introduction
 * (magic, index).
 *
 * <p>Owned by: the thread setting up connections. Mirrors: net_socket.cc's non-blocking connect stages.
 */
final class SocketConnect {
    private static final int MAX_REFUSED = 50;
    private static final long RETRY_NS = 20_000_000L;

    private final SocketHandle handle;
    private final int nThreads;
    private final SocketChannel[] socks;
    private final ByteBuffer[] intros;
    private final long[] retryAtNs;
    private int refused;

    SocketConnect(SocketHandle handle, int nThreads) throws IOException {
        this.handle = handle;
        this.nThreads = nThreads;
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
        SocketChannel[] data = new SocketChannel[socks.length - 1];
        System.arraycopy(socks, 1, data, 0, data.length);
        return new SocketComm(true, socks[0], data, nThreads, String.valueOf(handle.address()));
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
