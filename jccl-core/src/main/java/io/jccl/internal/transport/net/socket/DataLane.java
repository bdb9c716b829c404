package io.jccl.internal.transport.net.socket;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * One data socket of a comm and the queue of chunks to move over it, in posting order: a single-producer
 * (the thread that posts / reads control headers) single-consumer (the lane's owner: that thread, or a helper)
 * ring, so both ends of the socket see chunks in the same order.
 *
 * <p>Owned by: produced by the proxy thread, consumed by its owner thread. Mirrors: net_socket.cc's per-socket
 * task queue (ncclNetSocketTaskQueue).
 */
final class DataLane {
    private static final VarHandle LONG_ARR = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int HEAD = 0;
    private static final int TAIL = 16;

    final Wire wire;
    private final boolean sending;
    private final SocketRequest[] reqs;
    private final ByteBuffer[] bufs;
    private final long[] counters = new long[32];
    private volatile SocketHelper helper;

    DataLane(Wire wire, boolean sending, int capacity) {
        this.wire = wire;
        this.sending = sending;
        this.reqs = new SocketRequest[capacity];
        this.bufs = new ByteBuffer[capacity];
    }

    void ownedBy(SocketHelper h) {
        helper = h;
    }

    /** Producer: queues {@code buf} (already positioned) for {@code r}. Capacity is never exceeded (pool size). */
    void enqueue(SocketRequest r, ByteBuffer buf) {
        long t = (long) LONG_ARR.getOpaque(counters, TAIL);
        int i = (int) (t % reqs.length);
        reqs[i] = r;
        bufs[i] = buf;
        LONG_ARR.setRelease(counters, TAIL, t + 1);
        SocketHelper h = helper;
        if (h != null) {
            h.wake();
        }
    }

    boolean hasWork() {
        return (long) LONG_ARR.getOpaque(counters, HEAD) < (long) LONG_ARR.getAcquire(counters, TAIL);
    }

    /** Consumer: moves bytes of the queued chunks without blocking; true if any moved. */
    boolean progress() throws IOException {
        boolean moved = false;
        long h = (long) LONG_ARR.getOpaque(counters, HEAD);
        long t = (long) LONG_ARR.getAcquire(counters, TAIL);
        while (h < t) {
            int i = (int) (h % reqs.length);
            ByteBuffer b = bufs[i];
            if (b.hasRemaining()) {
                int n = sending ? wire.write(b) : wire.read(b);
                if (n < 0) {
                    throw new IOException("connection closed by the peer");
                }
                moved |= n > 0;
                if (b.hasRemaining()) {
                    return moved;
                }
            }
            if (sending && !wire.flushed()) {
                return moved;
            }
            SocketRequest r = reqs[i];
            reqs[i] = null;
            bufs[i] = null;
            LONG_ARR.setRelease(counters, HEAD, ++h);
            r.partDone();
            moved = true;
        }
        return moved;
    }
}
