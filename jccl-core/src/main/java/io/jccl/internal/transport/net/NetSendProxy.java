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
 * Proxy side of a network send connector: takes each slot the worker posted (tail), writes a 16-byte header (size,
 * step, tag) and the payload to the socket without blocking, then returns the slot (head) and wakes the worker.
 *
 * <p>Owned by: the proxy thread. Mirrors: net.cc sendProxyProgress (post / transmit / done stages, collapsed).
 */
final class NetSendProxy implements ProxyConnection {
    private final ConnFifo fifo;
    private final SocketChannel channel;
    private final Backoff worker;
    private final CommHealth health;
    private final String name;
    private final ByteBuffer header = ByteBuffer.allocateDirect(16).order(ByteOrder.BIG_ENDIAN);
    private final ByteBuffer[] pair = new ByteBuffer[2];
    private long sent;
    private boolean writing;
    private boolean stuck;
    private volatile boolean closing;

    NetSendProxy(ConnFifo fifo, SocketChannel channel, Backoff worker, CommHealth health, String name) {
        this.fifo = fifo;
        this.channel = channel;
        this.worker = worker;
        this.health = health;
        this.name = name;
        pair[0] = header;
    }

    @Override
    public boolean progress() {
        boolean moved = false;
        if (!writing) {
            if (sent >= fifo.tail()) {
                return false;
            }
            int size = fifo.size(sent);
            header.clear();
            header.putInt(size).putInt((int) sent).putLong(fifo.tag(sent)).flip();
            ByteBuffer payload = fifo.slotBuffer(sent);
            payload.clear().limit(size);
            pair[1] = payload;
            writing = true;
            moved = true;
        }
        try {
            long n = channel.write(pair);
            stuck = n == 0;
            moved |= n > 0;
        } catch (IOException e) {
            if (!closing && !health.isClosing()) {
                health.fail(new JcclException(Result.REMOTE_ERROR, name + ": send failed: " + e.getMessage()
                        + " (the peer exited, aborted or crashed)", e));
            }
            return false;
        }
        if (header.hasRemaining() || pair[1].hasRemaining()) {
            return moved;
        }
        writing = false;
        stuck = false;
        fifo.releaseHead(++sent);
        VarHandle.fullFence();
        worker.wake();
        return true;
    }

    @Override
    public SelectableChannel channel() {
        return channel;
    }

    @Override
    public int sleepInterest() {
        return writing && stuck ? SelectionKey.OP_WRITE : 0;
    }

    @Override
    public void close() {
        closing = true;
        SocketNet.closeQuietly(channel);
    }
}
