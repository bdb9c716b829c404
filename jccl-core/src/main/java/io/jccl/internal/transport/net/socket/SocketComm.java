package io.jccl.internal.transport.net.socket;

import io.jccl.net.NetPlugin;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.util.ArrayList;
import java.util.List;

/**
 * One connection of the socket plugin, either direction: a control socket that carries, per request and in order,
 * an 8-byte header (size, tag) followed by the payload when it is small, and optional data sockets over which a
 * large payload is cut into chunks of at least {@link #MIN_CHUNK_BYTES} (one per socket, starting at a socket that
 * rotates with each message). Both ends compute the same split from the size, so each socket's byte stream stays
 * in step. Data sockets are moved by the thread that tests requests, or by helper threads when there are several.
 *
 * <p>Owned by: the proxy thread (posting, testing, control socket); helper threads own their data sockets.
 * Mirrors: net_socket.cc's ncclNetSocketComm (ctrlSock, fds[], nThreads helpers, MIN_CHUNKSIZE split).
 */
final class SocketComm implements NetPlugin.SendComm, NetPlugin.RecvComm, PollableComm {
    /** Requests in flight per comm, NCCL's MAX_REQUESTS. */
    static final int MAX_REQUESTS = 16;
    /** Smallest chunk worth a socket of its own, NCCL's MIN_CHUNKSIZE. */
    static final int MIN_CHUNK_BYTES = 64 << 10;
    /** Inline payloads up to this size are copied behind the header and leave in one write (one syscall). */
    static final int COPY_MAX_BYTES = 16 << 10;

    final boolean sending;
    private final String peer;
    private final Wire ctrl;
    private final DataLane[] lanes;
    private final SocketHelper[] helpers;
    private final SelectableChannel[] channels;
    private final SocketRequest[] pool = new SocketRequest[MAX_REQUESTS];
    private final ByteBuffer header = ByteBuffer.allocateDirect(8).order(ByteOrder.BIG_ENDIAN);
    private final ByteBuffer out;
    /** The payload part in flight on the control socket (its [1]; a one-slot holder). */
    private final ByteBuffer[] pair = new ByteBuffer[2];
    private long posted;
    private long ctrlDone;
    private boolean inCtrl;
    private boolean headerRead;
    private volatile IOException error;
    private volatile boolean closed;

    SocketComm(boolean sending, Wire ctrl, Wire[] data, int nThreads, String peer) throws IOException {
        this.sending = sending;
        this.peer = peer;
        this.out = sending ? ByteBuffer.allocateDirect(8 + COPY_MAX_BYTES).order(ByteOrder.BIG_ENDIAN) : null;
        this.ctrl = ctrl;
        this.lanes = new DataLane[data.length];
        this.channels = new SelectableChannel[1 + data.length];
        channels[0] = ctrl.channel();
        for (int i = 0; i < data.length; i++) {
            lanes[i] = new DataLane(data[i], sending, MAX_REQUESTS);
            channels[1 + i] = data[i].channel();
        }
        for (int i = 0; i < MAX_REQUESTS; i++) {
            pool[i] = new SocketRequest(this, data.length);
        }
        int threads = data.length == 0 ? 0 : Math.min(nThreads, data.length);
        this.helpers = threads > 1 ? new SocketHelper[threads] : new SocketHelper[0];
        for (int t = 0; t < helpers.length; t++) {
            List<DataLane> owned = new ArrayList<>();
            for (int i = t; i < lanes.length; i += threads) {
                owned.add(lanes[i]);
            }
            helpers[t] = new SocketHelper(this, owned, "jccl-sock-helper-" + (sending ? "send-" : "recv-") + peer
                    + "-" + t);
        }
        for (SocketHelper h : helpers) {
            h.start();
        }
    }

    int dataSocks() {
        return lanes.length;
    }

    /** Posts a request; null when {@link #MAX_REQUESTS} are in flight. */
    SocketRequest post(SocketMr mr, long offset, int size, int tag) throws IOException {
        check();
        SocketRequest r = pool[(int) (posted % MAX_REQUESTS)];
        if (r.inUse) {
            return null;
        }
        if (offset < 0 || offset + size > mr.buffer().capacity()) {
            throw new IOException("request [" + offset + ", +" + size + ") is outside the registered "
                    + mr.buffer().capacity() + " bytes");
        }
        r.inUse = true;
        r.seq = posted++;
        r.bind(mr);
        r.offset = offset;
        r.tag = tag;
        if (sending) {
            r.sizeBytes = size;
            r.setPending(1 + chunks(size));
            enqueueChunks(r);
        } else {
            r.maxBytes = size;
            r.sizeBytes = -1;
            r.setPending(1);
        }
        return r;
    }

    /** Advances the comm and says whether {@code r} is complete (then returns it to the pool). */
    boolean test(SocketRequest r) throws IOException {
        check();
        progressCtrl();
        if (helpers.length == 0) {
            for (DataLane l : lanes) {
                l.progress();
            }
        }
        if (!r.complete()) {
            return false;
        }
        r.inUse = false;
        return true;
    }

    private int chunks(int size) {
        if (lanes.length == 0 || size <= MIN_CHUNK_BYTES) {
            return 0;
        }
        return (int) Math.min(lanes.length, ((long) size + MIN_CHUNK_BYTES - 1) / MIN_CHUNK_BYTES);
    }

    private void enqueueChunks(SocketRequest r) {
        int k = chunks(r.sizeBytes);
        if (k == 0) {
            return;
        }
        int chunk = (int) (((long) r.sizeBytes + k - 1) / k);
        for (int i = 0; i < k; i++) {
            int lane = (int) ((r.seq + i) % lanes.length);
            int from = i * chunk;
            int to = (int) Math.min(r.sizeBytes, (long) from + chunk);
            lanes[lane].enqueue(r, r.range(r.laneViews[lane], from, to));
        }
    }

    /** Moves control headers and inline payloads, in request order. */
    private void progressCtrl() throws IOException {
        while (ctrlDone < posted) {
            SocketRequest r = pool[(int) (ctrlDone % MAX_REQUESTS)];
            if (sending ? !sendCtrl(r) : !recvCtrl(r)) {
                return;
            }
            ctrlDone++;
            r.partDone();
        }
    }

    private boolean sendCtrl(SocketRequest r) throws IOException {
        if (!inCtrl) {
            int inline = chunks(r.sizeBytes) == 0 ? r.sizeBytes : 0;
            out.clear();
            out.putInt(r.sizeBytes).putInt(r.tag);
            ByteBuffer payload = r.range(r.ctrlView, 0, inline);
            if (inline <= COPY_MAX_BYTES) {
                out.put(payload);
                pair[1] = null;
            } else {
                pair[1] = payload;
            }
            out.flip();
            inCtrl = true;
        }
        // single-buffer writes: a gathering write of segment-backed buffers allocates in the JDK (scope releasers)
        if (out.hasRemaining()) {
            ctrl.write(out);
            if (out.hasRemaining()) {
                return false;
            }
        }
        ByteBuffer p = pair[1];
        if (p != null) {
            ctrl.write(p);
            if (p.hasRemaining()) {
                return false;
            }
        }
        if (!ctrl.flushed()) {
            return false;
        }
        inCtrl = false;
        pair[1] = null;
        return true;
    }

    private boolean recvCtrl(SocketRequest r) throws IOException {
        if (!inCtrl) {
            header.clear();
            inCtrl = true;
            headerRead = false;
        }
        if (!headerRead) {
            if (ctrl.read(header) < 0) {
                throw new IOException("connection closed by the peer");
            }
            if (header.hasRemaining()) {
                return false;
            }
            header.flip();
            int size = header.getInt();
            int tag = header.getInt();
            if (size < 0 || size > r.maxBytes || tag != r.tag) {
                throw new IOException("stream out of step: message of " + size + " bytes with tag " + tag
                        + " for a receive of at most " + r.maxBytes + " bytes with tag " + r.tag);
            }
            r.sizeBytes = size;
            headerRead = true;
            pair[1] = r.range(r.ctrlView, 0, chunks(size) == 0 ? size : 0);
            if (chunks(size) > 0) {
                r.setPending(1 + chunks(size)); // the control part, still pending, and the chunks
                enqueueChunks(r);
            }
        }
        ByteBuffer p = pair[1];
        if (p.hasRemaining() && ctrl.read(p) < 0) {
            throw new IOException("connection closed by the peer");
        }
        if (p.hasRemaining()) {
            return false;
        }
        inCtrl = false;
        pair[1] = null;
        return true;
    }

    void fail(IOException e) {
        if (error == null) {
            error = e;
        }
    }

    private void check() throws IOException {
        IOException e = error;
        if (e != null) {
            throw new IOException(e.getMessage(), e);
        }
        if (closed) {
            throw new IOException("comm to " + peer + " is closed");
        }
    }

    void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (SocketHelper h : helpers) {
            if (!h.stop()) {
                io.jccl.internal.debug.Log.warn(-1, "a socket helper thread of the connection to %s did not stop "
                        + "within %d ms", peer, SocketHelper.STOP_WAIT_MS);
            }
        }
        for (SelectableChannel c : channels) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    @Override
    public SelectableChannel[] channels() {
        return channels;
    }

    @Override
    public int sleepInterest(int i) {
        if (i == 0) {
            boolean waiting = ctrlDone < posted;
            return !waiting ? 0 : sending ? (inCtrl ? SelectionKey.OP_WRITE : 0) : SelectionKey.OP_READ;
        }
        if (helpers.length > 0 || !lanes[i - 1].hasWork()) {
            return 0;
        }
        return sending ? SelectionKey.OP_WRITE : SelectionKey.OP_READ;
    }

    @Override
    public boolean wakesOnChannels() {
        if (ctrl.buffered()) {
            return false;
        }
        if (helpers.length == 0) {
            for (DataLane l : lanes) {
                if (l.wire.buffered()) {
                    return false;
                }
            }
            return true;
        }
        for (DataLane l : lanes) {
            if (l.hasWork()) {
                return false;
            }
        }
        return true;
    }
}
