package io.jccl.internal.transport.net;

import io.jccl.internal.bootstrap.AuthKeys;
import io.jccl.internal.comm.CommHealth;
import io.jccl.internal.proxy.ProxyThread;
import io.jccl.internal.transport.ConnFifo;
import io.jccl.internal.transport.IdlePolicy;
import io.jccl.internal.transport.ParkSleeper;
import io.jccl.internal.transport.RecvConn;
import io.jccl.internal.transport.SendConn;
import io.jccl.internal.transport.Transport;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.nio.channels.SocketChannel;

/**
 * The network transport over TCP sockets: each connector has a FIFO in local memory on both sides; the proxy thread
 * moves slots between the sender's FIFO, the socket and the receiver's FIFO.
 *
 * <p>Owned by: created per communicator; setup methods run on the launching thread, data moves on the proxy thread.
 * Mirrors: transport/net.cc with the internal socket plugin.
 */
public final class NetTransport implements Transport {
    public static final String NAME = "NET/Socket";

    private final Arena arena;
    private final ProxyThread proxy;
    private final CommHealth health;
    private final InetAddress ifAddress;
    private final AuthKeys keys;
    private final int rank;
    private final long timeoutNs;
    private final IdlePolicy policy;

    public NetTransport(Arena arena, ProxyThread proxy, CommHealth health, InetAddress ifAddress, AuthKeys keys, int rank,
                        long timeoutNs, IdlePolicy policy) {
        this.policy = policy;
        this.arena = arena;
        this.proxy = proxy;
        this.health = health;
        this.ifAddress = ifAddress;
        this.keys = keys;
        this.rank = rank;
        this.timeoutNs = timeoutNs;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public PendingRecv setupRecv(int peer, int channel, int stepBytes) {
        SocketNet.Listener l = SocketNet.listen(ifAddress, stepBytes);
        return new PendingRecv() {
            @Override
            public byte[] info() {
                return l.handle().toBytes();
            }

            @Override
            public RecvConn complete() {
                SocketChannel ch = SocketNet.accept(l, keys, rank, peer, channel, timeoutNs, health);
                ConnFifo fifo = ConnFifo.allocate(arena, stepBytes);
                RecvConn conn = new RecvConn(fifo, proxy::wake, health, timeoutNs, policy, new ParkSleeper(), rank, peer, channel, NAME);
                proxy.add(new NetRecvProxy(fifo, ch, conn.backoff(), health,
                        "rank " + rank + " channel " + channel + " from rank " + peer));
                return conn;
            }
        };
    }

    @Override
    public SendConn connectSend(int peer, int channel, byte[] recvInfo) {
        SocketNet.Handle h = SocketNet.Handle.fromBytes(recvInfo);
        SocketChannel ch = SocketNet.connect(h, keys, rank, channel, timeoutNs, health);
        ConnFifo fifo = ConnFifo.allocate(arena, h.stepBytes());
        SendConn conn = new SendConn(fifo, proxy::wake, health, timeoutNs, policy, new ParkSleeper(), rank, peer, channel, NAME);
        proxy.add(new NetSendProxy(fifo, ch, conn.backoff(), health,
                "rank " + rank + " channel " + channel + " to rank " + peer));
        return conn;
    }
}
