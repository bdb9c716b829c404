package io.jccl.internal.transport.net.socket;

import io.jccl.internal.base.Tls;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.net.NetPlugin;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A listening socket waiting for the 1 + dataSocks connections of one sender. Each connection must first send the
 * handle's magic and its socket index; anything else (a stray client, a port scanner, a silent socket) is closed
 * and the wait goes on. Under {@code JCCL_TLS} each introduced socket is handed over as a {@link TlsWire}, whose
 * handshake and binding run with its first reads and writes.
 *
 * <p>Owned by: the thread setting up connections. Mirrors: net_socket.cc's ncclNetSocketListenComm and accept.
 */
final class SocketListen implements NetPlugin.ListenComm {
    static final int INTRO_BYTES = 12;
    private static final long INTRO_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);

    private final ServerSocketChannel server;
    private final SocketHandle handle;
    private final int nThreads;
    private final Tls tls;
    private final SocketChannel[] got;
    private final TlsWire[] wires;
    private final List<Pending> pending = new ArrayList<>();

    private record Pending(SocketChannel ch, ByteBuffer intro, long sinceNs) {
    }

    SocketListen(ServerSocketChannel server, SocketHandle handle, int nThreads, Tls tls) {
        this.server = server;
        this.handle = handle;
        this.nThreads = nThreads;
        this.tls = tls;
        this.got = new SocketChannel[1 + handle.dataSocks()];
        this.wires = new TlsWire[got.length];
    }

    SocketHandle handle() {
        return handle;
    }

    /** Takes what has arrived; the comm once every socket has introduced itself, else null. */
    SocketComm poll() throws IOException {
        for (SocketChannel ch; (ch = server.accept()) != null; ) {
            ch.configureBlocking(false);
            pending.add(new Pending(ch, ByteBuffer.allocate(INTRO_BYTES), System.nanoTime()));
        }
        for (Iterator<Pending> it = pending.iterator(); it.hasNext() && !full(); ) {
            Pending p = it.next();
            int n;
            try {
                n = p.ch().read(p.intro());
            } catch (IOException e) {
                n = -1;
            }
            if (n < 0 || (p.intro().hasRemaining() && System.nanoTime() - p.sinceNs() > INTRO_TIMEOUT_NS)) {
                drop(p, n < 0 ? "closed before introducing itself" : "silent");
                it.remove();
                continue;
            }
            if (p.intro().hasRemaining()) {
                continue;
            }
            it.remove();
            p.intro().flip();
            long magic = p.intro().getLong();
            int index = p.intro().getInt();
            if (magic != handle.magic() || index < 0 || index >= got.length || got[index] != null) {
                drop(p, "wrong magic or socket index " + index);
                continue;
            }
            SocketNetPlugin.configure(p.ch());
            got[index] = p.ch();
            if (tls != null) {
                wires[index] = new TlsWire(p.ch(), tls, false, "the rank at " + remote(p.ch()));
            }
        }
        if (!full()) {
            return null;
        }
        Wire[] w = new Wire[got.length];
        for (int i = 0; i < w.length; i++) {
            w[i] = tls == null ? Wire.plain(got[i]) : wires[i];
        }
        String peer = String.valueOf(got[0].getRemoteAddress());
        java.util.Arrays.fill(got, null);
        java.util.Arrays.fill(wires, null);
        return new SocketComm(false, w[0], java.util.Arrays.copyOfRange(w, 1, w.length), nThreads, peer);
    }


    private boolean full() {
        for (SocketChannel c : got) {
            if (c == null) {
                return false;
            }
        }
        return true;
    }

    private void drop(Pending p, String why) {
        Log.info(Subsys.NET, -1, "NET/Socket : dropped a connection from %s (%s)", remote(p.ch()), why);
        try {
            p.ch().close();
        } catch (IOException ignored) {
            // dropping anyway
        }
    }

    private static String remote(SocketChannel ch) {
        try {
            return String.valueOf(ch.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Pending p : pending) {
            try {
                p.ch().close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        pending.clear();
    }
}
