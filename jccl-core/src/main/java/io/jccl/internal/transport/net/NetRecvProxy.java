package io.jccl.internal.transport.net;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.comm.CommHealth;
import io.jccl.internal.proxy.ProxyConnection;
import io.jccl.internal.transport.Backoff;
import io.jccl.internal.transport.ConnFifo;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * Proxy side of a network receive connector: when the worker has a free slot (head), reads the next header and
 * payload from the socket into it without blocking, publishes it (size, tail) and wakes the worker. The header's
 * step number must match, so a desynchronised or corrupted stream fails loudly instead of delivering wrong data.
 *
 * <p>Owned by: the proxy thread. Mirrors: net.cc recvProxyProgress.
 */
final class NetRecvProxy implements ProxyConnection {
    private final ConnFifo fifo;
    private final SocketChannel channel;
    private final Backoff worker;
    private final CommHealth health;
    private final String name;
    private final ByteBuffer header = ByteBuffer.allocateDirect(16).order(ByteOrder.BIG_ENDIAN);
    private ByteBuffer payload;
    private long received;
    private int size;
    private long tag;
    private boolean inHeader = true;
    private boolean active;
    private volatile boolean closing;

    NetRecvProxy(ConnFifo fifo, SocketChannel channel, Backoff worker, CommHealth health, String name) {
        this.fifo = fifo;
        this.channel = channel;
        this.worker = worker;
        this.health = health;
        this.name = name;
    }

    @Override
    public boolean progress() {
        if (!active) {
            if (received >= fifo.head() + ConnFifo.NSTEPS) {
                return false;
            }
            active = true;
            inHeader = true;
            header.clear();
        }
        try {
            boolean moved = false;
            if (inHeader) {
                int n = channel.read(header);
                if (n < 0) {
                    return eof();
                }
                moved = n > 0;
                if (header.hasRemaining()) {
                    return moved;
                }
                header.flip();
                size = header.getInt();
                int step = header.getInt();
                tag = header.getLong();
                if (step != (int) received || size < 0 || size > fifo.stepBytes()) {
                    health.fail(new JcclException(Result.REMOTE_ERROR, name + ": corrupted stream: got step " + step
                            + " size " + size + ", expected step " + (int) received + " size <= " + fifo.stepBytes()));
                    return false;
                }
                payload = fifo.slotBuffer(received);
                payload.clear().limit(size);
                inHeader = false;
            }
            if (payload.hasRemaining()) {
                int n = channel.read(payload);
                if (n < 0) {
                    return eof();
                }
                moved |= n > 0;
                if (payload.hasRemaining()) {
                    return moved;
                }
            }
        } catch (IOException e) {
            if (!closing && !health.isClosing()) {
                health.fail(new JcclException(Result.REMOTE_ERROR, name + ": receive failed: " + e.getMessage()
                        + " (the peer exited, aborted or crashed)", e));
            }
            return false;
        }
        fifo.setSize(received, size);
        fifo.setTag(received, tag);
        fifo.releaseTail(++received);
        VarHandle.fullFence();
        worker.wake();
        active = false;
        return true;
    }

    private boolean eof() {
        if (!closing && !health.isBroken() && !health.isClosing()) {
            health.fail(new JcclException(Result.REMOTE_ERROR, name + ": the peer closed the connection"
                    + " (it exited, aborted or crashed)"));
        }
        closing = true;
        return false;
    }

    @Override
    public SelectableChannel channel() {
        return channel;
    }

    @Override
    public int sleepInterest() {
        return !active && received >= fifo.head() + ConnFifo.NSTEPS ? 0 : SelectionKey.OP_READ;
    }

    @Override
    public void close() {
        closing = true;
        SocketNet.closeQuietly(channel);
    }
}
