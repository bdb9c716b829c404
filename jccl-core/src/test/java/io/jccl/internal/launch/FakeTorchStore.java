package io.jccl.internal.launch;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Test double of a torch 2.x TCPStore server (the validating dialect), written from the protocol's description: a
 * connection's first message must be VALIDATE with the magic number, else (as the libuv server does) nothing it sends
 * is ever answered; then SET, GET, CHECK, WAIT, GETNUMKEYS and PING. One thread per connection.
 */
final class FakeTorchStore implements AutoCloseable {
    private static final int VALIDATE = 0;
    private static final int SET = 1;
    private static final int GET = 3;
    private static final int CHECK = 5;
    private static final int WAIT = 6;
    private static final int GETNUMKEYS = 7;
    private static final int PING = 13;

    private final ServerSocket server;
    private final Map<String, byte[]> data = new HashMap<>();
    private final List<Socket> clients = new ArrayList<>();
    private volatile boolean closed;

    FakeTorchStore() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "fake-torch-store");
        t.setDaemon(true);
        t.start();
    }

    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    int port() {
        return server.getLocalPort();
    }

    synchronized byte[] value(String key) {
        return data.get(key);
    }

    synchronized void put(String key, byte[] value) {
        data.put(key, value);
        notifyAll();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket s = server.accept();
                synchronized (this) {
                    clients.add(s);
                }
                Thread t = new Thread(() -> serve(s), "fake-torch-store-client");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            int first = in.read();
            if (first != VALIDATE || readInt(in) != TcpStoreClient.VALIDATION_MAGIC) {
                in.transferTo(OutputStream.nullOutputStream());
                return;
            }
            while (true) {
                int command = in.read();
                if (command < 0) {
                    return;
                }
                switch (command) {
                    case SET -> put(readString(in), readBytes(in));
                    case GET -> out.write(vector(value(readString(in))));
                    case CHECK -> out.write(allSet(readKeys(in)) ? 0 : 1);
                    case WAIT -> {
                        List<String> keys = readKeys(in);
                        synchronized (this) {
                            while (!allSet(keys) && !closed) {
                                wait(100);
                            }
                        }
                        out.write(0);
                    }
                    case GETNUMKEYS -> out.write(longBytes(numKeys()));
                    case PING -> out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN)
                            .putInt(readInt(in)).array());
                    default -> {
                        return;
                    }
                }
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // the client went away or the store closed
        }
    }

    private synchronized boolean allSet(List<String> keys) {
        return keys.stream().allMatch(data::containsKey);
    }

    private synchronized long numKeys() {
        return data.size();
    }

    private static List<String> readKeys(DataInputStream in) throws IOException {
        long n = readLong(in);
        List<String> keys = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            keys.add(readString(in));
        }
        return keys;
    }

    private static String readString(DataInputStream in) throws IOException {
        return new String(readBytes(in), StandardCharsets.UTF_8);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        long n = readLong(in);
        if (n < 0 || n > 1 << 20) {
            throw new IOException("length " + n);
        }
        byte[] b = new byte[(int) n];
        in.readFully(b);
        return b;
    }

    private static long readLong(DataInputStream in) throws IOException {
        byte[] b = new byte[8];
        in.readFully(b);
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    private static int readInt(DataInputStream in) throws IOException {
        byte[] b = new byte[4];
        in.readFully(b);
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    private static byte[] vector(byte[] v) {
        byte[] value = v == null ? new byte[0] : v;
        return ByteBuffer.allocate(8 + value.length).order(ByteOrder.LITTLE_ENDIAN).putLong(value.length).put(value)
                .array();
    }

    private static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        synchronized (this) {
            notifyAll();
            for (Socket s : clients) {
                s.close();
            }
        }
    }
}
