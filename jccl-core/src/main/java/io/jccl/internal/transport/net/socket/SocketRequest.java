package io.jccl.internal.transport.net.socket;

import io.jccl.net.NetPlugin;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * One pooled send or receive of a {@link SocketComm}: where its bytes are, its size and tag, and how many parts
 * (the control part, then one per data-socket chunk) are still moving. Views over the registered memory are made
 * once per registration, so steady-state requests allocate nothing.
 *
 * <p>Owned by: the thread that posts and tests it; parts are completed by helper threads. Mirrors: net_socket.cc's
 * ncclNetSocketRequest and its per-socket tasks.
 */
final class SocketRequest implements NetPlugin.Request {
    private static final VarHandle PENDING;

    static {
        try {
            PENDING = MethodHandles.lookup().findVarHandle(SocketRequest.class, "pending", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final SocketComm comm;
    boolean inUse;
    long seq;
    SocketMr mr;
    long offset;
    int sizeBytes;
    int maxBytes;
    int tag;
    final ByteBuffer[] laneViews;
    ByteBuffer ctrlView;
    @SuppressWarnings("unused")
    private volatile int pending;

    SocketRequest(SocketComm comm, int lanes) {
        this.comm = comm;
        this.laneViews = new ByteBuffer[lanes];
    }

    /** Makes the views over {@code m} (once per registration). */
    void bind(SocketMr m) {
        if (mr != m) {
            mr = m;
            ctrlView = m.buffer().duplicate();
            for (int i = 0; i < laneViews.length; i++) {
                laneViews[i] = m.buffer().duplicate();
            }
        }
    }

    /** {@code buf} positioned on [offset + from, offset + to). */
    ByteBuffer range(ByteBuffer buf, int from, int to) {
        buf.clear();
        buf.limit((int) (offset + to)).position((int) (offset + from));
        return buf;
    }

    void setPending(int parts) {
        PENDING.setRelease(this, parts);
    }

    void partDone() {
        PENDING.getAndAdd(this, -1);
    }

    boolean complete() {
        return (int) PENDING.getAcquire(this) == 0;
    }

    @Override
    public int sizeBytes() {
        return sizeBytes;
    }
}
