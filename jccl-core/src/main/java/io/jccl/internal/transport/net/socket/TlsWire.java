package io.jccl.internal.transport.net.socket;

import io.jccl.internal.base.Tls;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * TLS over one non-blocking socket of a comm ({@code JCCL_TLS}). A connection is handed over as soon as its sockets
 * are introduced (the thread that makes connections may make all of its own before it accepts any, and a rank may
 * send before it receives, so neither may wait for a handshake); a virtual thread of this wire then runs the
 * handshake and the binding to the communicator ({@link Tls}) on its own, failing after
 * {@link #HANDSHAKE_TIMEOUT_NS}, while reads move nothing (or throw its failure) and writes are kept (up to
 * {@link #EARLY_BYTES}) for that thread to send first. Once it is done the
 * wire belongs to the thread that moves the socket: reads unwrap records (straight into the caller's buffer when it
 * has room for a whole record) and writes wrap up to {@value #RECORDS_PER_WRITE} records per socket write. Buffers
 * are allocated once, here.
 *
 * <p>Owned by: its handshake thread until {@code ready}, then the thread moving the socket (the proxy thread or a
 * helper); the volatile {@code ready} hands the buffers over. Mirrors:
 * NCCL 2.32's encrypted ncclSocket (OpenSSL over its sockets).
 */
final class TlsWire implements Wire {
    static final int RECORDS_PER_WRITE = 4;
    /** Longest the handshake and binding may take. */
    static final long HANDSHAKE_TIMEOUT_NS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    private static final long PUMP_PARK_NS = 100_000;
    /**
     * Bytes a sender may write before the handshake completes (a connection's first message, e.g. its hello: its
     * sender waits for it before the receiver may even accept the connection, as over a plain socket's buffer).
     */
    static final int EARLY_BYTES = 64 << 10;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final SocketChannel ch;
    private final Tls tls;
    private final boolean client;
    private final String peer;
    private final SSLEngine engine;
    private final int packetBytes;
    private final int appBytes;
    /** Write mode: bytes read from the socket and not yet unwrapped. */
    private final ByteBuffer netIn;
    /** Read mode: wrapped bytes not yet on the socket. */
    private final ByteBuffer netOut;
    /** Read mode: unwrapped bytes not yet read. */
    private final ByteBuffer appIn;
    private final long startNs = System.nanoTime();
    private ByteBuffer bindOut;
    private ByteBuffer bindIn;
    /** Write mode: bytes written before the handshake completed, sent by the handshake thread when it does. */
    private final ByteBuffer early = ByteBuffer.allocate(EARLY_BYTES);
    private volatile boolean ready;
    private volatile IOException failure;

    TlsWire(SocketChannel ch, Tls tls, boolean client, String peer) throws SSLException {
        this.ch = ch;
        this.tls = tls;
        this.client = client;
        this.peer = peer;
        this.engine = tls.engine(client);
        this.packetBytes = engine.getSession().getPacketBufferSize();
        this.appBytes = engine.getSession().getApplicationBufferSize();
        this.netIn = ByteBuffer.allocate(packetBytes * RECORDS_PER_WRITE);
        this.netOut = ByteBuffer.allocate(packetBytes * RECORDS_PER_WRITE).flip();
        this.appIn = ByteBuffer.allocate(appBytes).flip();
        engine.beginHandshake();
        Thread.ofVirtual().name("jccl-tls-handshake").start(this::pump);
    }

    private void pump() {
        try {
            while (!step() || !handOver()) {
                if (!ch.isOpen()) {
                    throw new IOException("TLS with " + peer + ": the socket was closed during the handshake");
                }
                java.util.concurrent.locks.LockSupport.parkNanos(PUMP_PARK_NS);
            }
        } catch (IOException | RuntimeException e) {
            failure = e instanceof IOException io ? io : new IOException("TLS with " + peer + " failed: " + e, e);
        }
    }

    /**
     * Handshake thread, once bound: sends what was written before (the bytes {@link #write} took early) and hands
     * the wire over; false while those bytes are still leaving.
     */
    private boolean handOver() throws IOException {
        synchronized (early) {
            early.flip();
            try {
                writeData(early);
            } finally {
                early.compact();
            }
            if (early.position() > 0 || !flushOut()) {
                return false;
            }
            ready = true;
            return true;
        }
    }

    /** True once the handshake and binding are done; throws their failure. */
    boolean ready() throws IOException {
        if (ready) {
            return true;
        }
        IOException f = failure;
        if (f != null) {
            throw new IOException(f.getMessage(), f);
        }
        return false;
    }

    /** One non-blocking step of the handshake and binding (handshake thread only); true once both are done. */
    private boolean step() throws IOException {
        try {
            if (bindOut == null) {
                if (!handshake()) {
                    return false;
                }
                bindOut = ByteBuffer.wrap(tls.binding(engine.getSession(), client));
                bindIn = ByteBuffer.allocate(Tls.BINDING_BYTES);
            }
            if (bindOut.hasRemaining()) {
                writeData(bindOut);
            }
            if (bindOut.hasRemaining() || !flushOut()) {
                return false;
            }
            if (bindIn.hasRemaining() && readData(bindIn) < 0) {
                throw new EOFException("the peer closed the connection");
            }
            if (bindIn.hasRemaining()) {
                return false;
            }
            if (!tls.bindingHolds(engine.getSession(), client, bindIn.array())) {
                throw new SSLException("the peer did not prove this communicator's secret");
            }
            return true;
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("TLS with ")) {
                throw e;
            }
            throw new IOException("TLS with " + peer + " failed: " + e.getMessage()
                    + " (JCCL_TLS must be the same on every rank)", e);
        }
    }

    private boolean handshake() throws IOException {
        if (System.nanoTime() - startNs > HANDSHAKE_TIMEOUT_NS) {
            throw new IOException("TLS with " + peer + " did not complete within "
                    + java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(HANDSHAKE_TIMEOUT_NS)
                    + " s (JCCL_TLS must be the same on every rank)");
        }
        while (true) {
            switch (engine.getHandshakeStatus()) {
                case NEED_TASK -> runTasks();
                case NEED_WRAP -> {
                    if (!flushOut()) {
                        return false;
                    }
                    netOut.compact();
                    SSLEngineResult r = engine.wrap(EMPTY, netOut);
                    netOut.flip();
                    closedCheck(r);
                    flushOut();
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    netIn.flip();
                    appIn.compact();
                    SSLEngineResult r;
                    try {
                        r = engine.unwrap(netIn, appIn);
                    } finally {
                        appIn.flip();
                        netIn.compact();
                    }
                    closedCheck(r);
                    if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
                        int n = ch.read(netIn);
                        if (n < 0) {
                            throw new EOFException("the peer closed the connection during the handshake");
                        }
                        if (n == 0) {
                            return false;
                        }
                    }
                }
                default -> {
                    return flushOut();
                }
            }
        }
    }

    private void runTasks() {
        for (Runnable t; (t = engine.getDelegatedTask()) != null; ) {
            t.run();
        }
    }

    private static void closedCheck(SSLEngineResult r) throws SSLException {
        if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
            throw new SSLException("the TLS session was closed");
        }
    }

    /** After an unwrap: answers what the engine asks for (tasks, post-handshake messages) without blocking. */
    private void serviceHandshake() throws IOException {
        SSLEngineResult.HandshakeStatus hs = engine.getHandshakeStatus();
        if (hs == SSLEngineResult.HandshakeStatus.NEED_TASK) {
            runTasks();
            hs = engine.getHandshakeStatus();
        }
        if (hs == SSLEngineResult.HandshakeStatus.NEED_WRAP && flushOut()) {
            netOut.compact();
            SSLEngineResult r = engine.wrap(EMPTY, netOut);
            netOut.flip();
            closedCheck(r);
            flushOut();
        }
    }

    @Override
    public SocketChannel channel() {
        return ch;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return ready() ? readData(dst) : 0;
    }

    private int readData(ByteBuffer dst) throws IOException {
        int got = drain(dst);
        if (got > 0 || !dst.hasRemaining()) {
            return got;
        }
        boolean eof = ch.read(netIn) < 0;
        netIn.flip();
        try {
            while (netIn.hasRemaining() && dst.hasRemaining()) {
                boolean direct = dst.remaining() >= appBytes;
                SSLEngineResult r;
                if (direct) {
                    r = engine.unwrap(netIn, dst);
                } else {
                    appIn.clear();
                    try {
                        r = engine.unwrap(netIn, appIn);
                    } finally {
                        appIn.flip();
                    }
                }
                SSLEngineResult.Status st = r.getStatus();
                if (st == SSLEngineResult.Status.CLOSED) {
                    eof = true;
                    break;
                }
                if (st != SSLEngineResult.Status.OK) {
                    break; // underflow: a partial record waits for more bytes
                }
                got += direct ? r.bytesProduced() : drain(dst);
                if (r.getHandshakeStatus() != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING) {
                    serviceHandshake();
                }
                if (appIn.hasRemaining()) {
                    break;
                }
            }
        } finally {
            netIn.compact();
        }
        return got == 0 && eof ? -1 : got;
    }

    private int drain(ByteBuffer dst) {
        int n = Math.min(appIn.remaining(), dst.remaining());
        if (n > 0) {
            int lim = appIn.limit();
            appIn.limit(appIn.position() + n);
            dst.put(appIn);
            appIn.limit(lim);
        }
        return n;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (ready()) {
            return writeData(src);
        }
        synchronized (early) {
            if (ready) {
                return writeData(src);
            }
            int n = Math.min(src.remaining(), early.remaining());
            int lim = src.limit();
            src.limit(src.position() + n);
            early.put(src);
            src.limit(lim);
            return n;
        }
    }

    private int writeData(ByteBuffer src) throws IOException {
        if (!flushOut()) {
            return 0;
        }
        int taken = 0;
        netOut.clear();
        try {
            while (src.hasRemaining() && netOut.remaining() >= packetBytes) {
                SSLEngineResult r = engine.wrap(src, netOut);
                closedCheck(r);
                if (r.getStatus() != SSLEngineResult.Status.OK) {
                    break;
                }
                taken += r.bytesConsumed();
            }
        } finally {
            netOut.flip();
        }
        flushOut();
        return taken;
    }

    @Override
    public boolean flushed() throws IOException {
        // before the hand-over, what was written early is the handshake thread's to send
        return !ready() || flushOut();
    }

    private boolean flushOut() throws IOException {
        while (netOut.hasRemaining()) {
            if (ch.write(netOut) == 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean buffered() {
        return !ready || appIn.hasRemaining() || netIn.position() > 0 || netOut.hasRemaining();
    }
}
