package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.Result;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A client of PyTorch's TCPStore, the key-value store torchrun's agent (and {@code env://}) runs on
 * MASTER_ADDR:MASTER_PORT, speaking its wire protocol: a query-type byte, then strings and byte vectors each as a
 * little-endian 64-bit length and the bytes. Two dialects exist:
 * <ul>
 *   <li>torch 1.x: SET 0, GET 2, CHECK 4, WAIT 5;</li>
 *   <li>torch 2.x: the connection first sends VALIDATE (0) and the 32-bit magic {@code 0x3C85F7CE}; then SET 1,
 *       GET 3, CHECK 5, WAIT 6.</li>
 * </ul>
 * The dialect is found by asking a 1.x CHECK first: a 1.x server answers with one byte (READY 0 / NOT_READY 1), a
 * 2.x server closes a connection whose first query is not VALIDATE; the client then reconnects in the 2.x dialect.
 * Only SET, CHECK and GET are used (waiting is polling CHECK, so the waiter can log and keep its own deadline).
 *
 * <p>Owned by: the thread that joins the communicator (one call at a time). Mirrors: torch/csrc/distributed/c10d's
 * TCPStore client (TCPClient) as a Java peer of torchrun's store.
 */
final class TorchStore implements AutoCloseable {
    /** The query numbers of one dialect. */
    enum Dialect {
        V1(-1, 0, 2, 4),
        V2(0, 1, 3, 5);

        final int validate;
        final int set;
        final int get;
        final int check;

        Dialect(int validate, int set, int get, int check) {
            this.validate = validate;
            this.set = set;
            this.get = get;
            this.check = check;
        }
    }

    private static final int MAGIC = 0x3C85F7CE;
    private static final int READY = 0;
    private static final int NOT_READY = 1;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final Dialect dialect;
    private final InetSocketAddress address;

    private TorchStore(Socket socket, Dialect dialect, InetSocketAddress address) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = socket.getOutputStream();
        this.dialect = dialect;
        this.address = address;
    }

    /** Connects (retrying until {@code deadlineNs}) and finds the server's dialect. */
    static TorchStore connect(InetSocketAddress address, long deadlineNs, String who) {
        IOException last = null;
        while (System.nanoTime() < deadlineNs) {
            for (Dialect d : Dialect.values()) {
                TorchStore s = null;
                try {
                    s = new TorchStore(open(address, deadlineNs), d, address);
                    if (d.validate >= 0) {
                        s.out.write(ByteBuffer.allocate(5).order(ByteOrder.LITTLE_ENDIAN).put((byte) d.validate)
                                .putInt(MAGIC).array());
                    }
                    s.check("jccl/dialect-probe");   // a wrong dialect is closed by the server here
                    return s;
                } catch (IOException e) {
                    last = e;
                    if (s != null) {
                        s.close();
                    }
                }
            }
            sleep(200);
        }
        throw new JcclException(Result.TIMEOUT, who + ": could not reach torchrun's TCPStore at " + address
                + " before the deadline" + (last != null ? ": " + last.getMessage() : ""));
    }

    private static Socket open(InetSocketAddress address, long deadlineNs) throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            long left = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
            s.connect(address, Math.clamp(left, 1, 10_000));
            s.setSoTimeout(10_000);
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    /** The dialect the server speaks. */
    Dialect dialect() {
        return dialect;
    }

    /** Sets {@code key} to {@code value}. */
    void set(String key, byte[] value) throws IOException {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        out.write(ByteBuffer.allocate(1 + 8 + k.length + 8 + value.length).order(ByteOrder.LITTLE_ENDIAN)
                .put((byte) dialect.set).putLong(k.length).put(k).putLong(value.length).put(value).array());
        out.flush();
    }

    /** Whether {@code key} is set. */
    boolean check(String key) throws IOException {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        out.write(ByteBuffer.allocate(1 + 8 + 8 + k.length).order(ByteOrder.LITTLE_ENDIAN)
                .put((byte) dialect.check).putLong(1).putLong(k.length).put(k).array());
        out.flush();
        int r = in.read();
        if (r != READY && r != NOT_READY) {
            throw new IOException("the store closed the connection or answered " + r + " to CHECK");
        }
        return r == READY;
    }

    /** The value of {@code key}, which must be set. */
    byte[] get(String key) throws IOException {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        out.write(ByteBuffer.allocate(1 + 8 + k.length).order(ByteOrder.LITTLE_ENDIAN)
                .put((byte) dialect.get).putLong(k.length).put(k).array());
        out.flush();
        long n = Long.reverseBytes(in.readLong());
        if (n < 0 || n > 1 << 20) {
            throw new IOException("the store answered a value of " + n + " bytes for " + key);
        }
        byte[] v = new byte[(int) n];
        in.readFully(v);
        return v;
    }

    /** Where the store is. */
    InetSocketAddress address() {
        return address;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcclException(Result.ABORTED, "interrupted while waiting for torchrun's store");
        }
    }
}
