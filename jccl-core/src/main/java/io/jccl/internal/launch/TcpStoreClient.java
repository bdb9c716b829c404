package io.jccl.internal.launch;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.LongConsumer;

/**
 * A client of torch.distributed's TCPStore (the key-value store a torchrun agent serves its workers), with what it
 * takes to publish one value and fetch it: SET, CHECK, WAIT and GET.
 *
 * <p>The wire format, in both dialects: a command byte, then each key or value as a uint64 length and its bytes, and
 * for CHECK and WAIT first a uint64 count of keys; integers in the host's byte order, little-endian on every platform
 * torch ships for. SET has no reply; CHECK replies one byte (0 ready, 1 not ready), WAIT one byte 0 once every key is
 * set, GET the value as length and bytes, GETNUMKEYS an int64. Keys are taken as given: torch's own clients put a
 * {@code /} before each key their users name.
 *
 * <p>Two dialects. {@link Dialect#LEGACY} (torch 1.x and early 2.x; 1.13 checked): no handshake, SET 0, GET 2,
 * CHECK 4, WAIT 5, GETNUMKEYS 6. {@link Dialect#VALIDATED} (later 2.x, both the classic and the libuv server): a
 * connection's first message must be VALIDATE (0) with the uint32 0x3C85F7CE, and the commands moved up by one:
 * SET 1, GET 3, CHECK 5, WAIT 6, GETNUMKEYS 7 (PING, 13, exists only in the newest, so it is not used). The dialect is
 * found by probing, so that neither kind of store is ever left blocked: {@link #connect} sends VALIDATE followed by
 * four GETNUMKEYS, which a validating store answers with four int64s. A legacy store reads the same nine bytes as a
 * SET whose key length (0x070707073C85F7CE) it cannot allocate, and closes the connection at once; on that close (or
 * on no answer within the probe time) a second connection speaks the legacy dialect, confirmed by a GETNUMKEYS
 * answered. A store that answers neither is refused. Neither probe writes a key.
 *
 * <p>Owned by: the thread that connected it (not thread-safe). Mirrors: the client half of torch's TCPStore
 * (torch/csrc/distributed/c10d/TCPStore.cpp), as the {@code env://} init method uses it.
 */
final class TcpStoreClient implements AutoCloseable {
    /** The numbering of the commands used here, per dialect. */
    enum Dialect {
        LEGACY("torch 1.x store", 0, 2, 4, 5, 6),
        VALIDATED("torch 2.x store", 1, 3, 5, 6, 7);

        final String label;
        final int set;
        final int get;
        final int check;
        final int await;
        final int numKeys;

        Dialect(String label, int set, int get, int check, int await, int numKeys) {
            this.label = label;
            this.set = set;
            this.get = get;
            this.check = check;
            this.await = await;
            this.numKeys = numKeys;
        }
    }

    static final int VALIDATE = 0;
    static final int VALIDATION_MAGIC = 0x3C85F7CE;
    /** The largest value accepted from GET: the store holds small things for us. */
    static final int MAX_VALUE_BYTES = 1 << 20;
    private static final long RETRY_MS = 200;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final Dialect dialect;
    private final String where;

    private TcpStoreClient(Socket socket, Dialect dialect, String where) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.dialect = dialect;
        this.where = where;
    }

    /**
     * Connects to the store at {@code store}, retrying a refused connection until {@code deadlineNanos}
     * ({@link System#nanoTime()}), and finds its dialect, waiting at most {@code probe} for each probe's answer.
     */
    static TcpStoreClient connect(InetSocketAddress store, long deadlineNanos, Duration probe) throws IOException {
        String where = store.getHostString() + ":" + store.getPort();
        Socket s = open(store, where, deadlineNanos);
        String validatedFailure;
        try {
            s.setSoTimeout(probeMs(probe, deadlineNanos));
            ByteBuffer b = message(9);
            b.put((byte) VALIDATE).putInt(VALIDATION_MAGIC);
            for (int i = 0; i < 4; i++) {
                b.put((byte) Dialect.VALIDATED.numKeys);
            }
            send(s.getOutputStream(), b);
            readFully(s.getInputStream(), 32);
            s.setSoTimeout(0);
            return new TcpStoreClient(s, Dialect.VALIDATED, where);
        } catch (EOFException | SocketTimeoutException e) {
            validatedFailure = e instanceof EOFException ? "closed the connection" : "did not answer";
            closeQuietly(s);
        } catch (IOException e) {
            closeQuietly(s);
            throw e;
        }
        Socket legacy = open(store, where, deadlineNanos);
        try {
            legacy.setSoTimeout(probeMs(probe, deadlineNanos));
            send(legacy.getOutputStream(), message(1).put((byte) Dialect.LEGACY.numKeys));
            readFully(legacy.getInputStream(), 8);
            legacy.setSoTimeout(0);
            return new TcpStoreClient(legacy, Dialect.LEGACY, where);
        } catch (EOFException | SocketTimeoutException e) {
            closeQuietly(legacy);
            throw new IOException("no torch TCPStore answers at " + where + ": to the torch 2.x handshake it "
                    + validatedFailure + ", to the torch 1.x query it " + (e instanceof EOFException
                            ? "closed the connection" : "did not answer") + " (is MASTER_PORT the store's port?)");
        } catch (IOException e) {
            closeQuietly(legacy);
            throw e;
        }
    }

    /** The dialect the store speaks. */
    Dialect dialect() {
        return dialect;
    }

    /** {@code host:port} of the store. */
    String where() {
        return where;
    }

    /** Sets {@code key} to {@code value}, and returns once the store holds it (a CHECK answered ready). */
    void set(String key, byte[] value) throws IOException {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = message(1 + 8 + k.length + 8 + value.length);
        b.put((byte) dialect.set).putLong(k.length).put(k).putLong(value.length).put(value);
        send(out, b);
        if (!check(key)) {
            throw new IOException("the store at " + where + " does not hold key '" + key + "' just set");
        }
    }

    /** Whether {@code key} is set. */
    boolean check(String key) throws IOException {
        send(out, keysMessage(dialect.check, key));
        int reply = readFully(in, 1).get() & 0xff;
        if (reply > 1) {
            throw new IOException("the store at " + where + " answered CHECK with " + reply);
        }
        return reply == 0;
    }

    /**
     * Waits until {@code key} is set or {@code deadlineNanos} passes, calling {@code progress} with the milliseconds
     * waited every {@code progressEvery}. After a false return the connection still waits: close it.
     *
     * @return true when the key is set, false at the deadline
     */
    boolean await(String key, long deadlineNanos, Duration progressEvery, LongConsumer progress) throws IOException {
        long start = System.nanoTime();
        long every = Math.max(1, progressEvery.toNanos());
        long nextProgress = start + every;
        send(out, keysMessage(dialect.await, key));
        while (true) {
            long now = System.nanoTime();
            if (now - deadlineNanos >= 0) {
                return false;
            }
            long slice = Math.min(deadlineNanos - now, nextProgress - now);
            socket.setSoTimeout(Math.clamp(Duration.ofNanos(slice).toMillis(), 1, Integer.MAX_VALUE));
            try {
                int reply = readFully(in, 1).get() & 0xff;
                socket.setSoTimeout(0);
                if (reply != 0) {
                    throw new IOException("the store at " + where + " answered WAIT with " + reply);
                }
                return true;
            } catch (SocketTimeoutException e) {
                now = System.nanoTime();
                if (now - nextProgress >= 0 && now - deadlineNanos < 0) {
                    progress.accept(Duration.ofNanos(now - start).toMillis());
                    nextProgress += every;
                }
            }
        }
    }

    /** The value of {@code key}, which must be set. */
    byte[] get(String key) throws IOException {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = message(1 + 8 + k.length);
        b.put((byte) dialect.get).putLong(k.length).put(k);
        send(out, b);
        long n = readFully(in, 8).getLong();
        if (n < 0 || n > MAX_VALUE_BYTES) {
            throw new IOException("the store at " + where + " answered GET '" + key + "' with a length of " + n);
        }
        byte[] v = new byte[(int) n];
        readFully(in, v.length).get(v);
        return v;
    }

    @Override
    public void close() {
        closeQuietly(socket);
    }

    private static Socket open(InetSocketAddress store, String where, long deadlineNanos) throws IOException {
        IOException last;
        do {
            Socket s = new Socket();
            try {
                long left = Math.max(1, Duration.ofNanos(deadlineNanos - System.nanoTime()).toMillis());
                s.connect(store, (int) Math.min(left, Integer.MAX_VALUE));
                s.setTcpNoDelay(true);
                return s;
            } catch (ConnectException | SocketTimeoutException e) {
                closeQuietly(s);
                last = e;
            } catch (IOException e) {
                closeQuietly(s);
                throw e;
            }
            try {
                Thread.sleep(RETRY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while connecting to the store at " + where, e);
            }
        } while (System.nanoTime() - deadlineNanos < 0);
        throw new IOException("cannot connect to the store at " + where + ": " + last.getMessage(), last);
    }

    private static int probeMs(Duration probe, long deadlineNanos) {
        long left = Duration.ofNanos(deadlineNanos - System.nanoTime()).toMillis();
        return Math.clamp(Math.min(probe.toMillis(), left), 1, Integer.MAX_VALUE);
    }

    private static ByteBuffer keysMessage(int command, String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = message(1 + 8 + 8 + k.length);
        return b.put((byte) command).putLong(1).putLong(k.length).put(k);
    }

    private static ByteBuffer message(int bytes) {
        return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static void send(OutputStream out, ByteBuffer b) throws IOException {
        out.write(b.array(), 0, b.position());
        out.flush();
    }

    private static ByteBuffer readFully(InputStream in, int n) throws IOException {
        byte[] buf = new byte[n];
        int got = 0;
        while (got < n) {
            int r = in.read(buf, got, n - got);
            if (r < 0) {
                throw new EOFException("the store closed the connection");
            }
            got += r;
        }
        return ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
