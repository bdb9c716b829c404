package io.jccl.internal.transport.net.socket;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The byte stream of one socket of a comm: the socket itself ({@link #plain}) or TLS over it ({@link TlsWire}).
 * Reads and writes never block. A write may hold bytes back (a TLS record not yet on the socket): a sender counts a
 * buffer as sent only once {@link #flushed()} says so.
 *
 * <p>Owned by: the thread that moves the socket (the proxy thread or a helper). Mirrors: net_socket.cc's socket
 * reads and writes (ncclSocketProgress), with NCCL 2.32's optional encryption underneath.
 */
interface Wire {
    /** The socket (for selectors and closing). */
    SocketChannel channel();

    /** Moves bytes into {@code dst}; -1 at the end of the stream. */
    int read(ByteBuffer dst) throws IOException;

    /** Takes bytes from {@code src} (they may still be held back: see {@link #flushed()}). */
    int write(ByteBuffer src) throws IOException;

    /** Tries to put held-back bytes on the socket; true when none are held back. */
    boolean flushed() throws IOException;

    /** True while bytes already taken from the socket wait to be read (no socket readiness will announce them). */
    boolean buffered();

    /** The socket as it is. */
    static Wire plain(SocketChannel ch) {
        return new Wire() {
            @Override
            public SocketChannel channel() {
                return ch;
            }

            @Override
            public int read(ByteBuffer dst) throws IOException {
                return ch.read(dst);
            }

            @Override
            public int write(ByteBuffer src) throws IOException {
                return ch.write(src);
            }

            @Override
            public boolean flushed() {
                return true;
            }

            @Override
            public boolean buffered() {
                return false;
            }
        };
    }
}
