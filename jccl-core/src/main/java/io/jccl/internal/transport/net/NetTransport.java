package io.jccl.internal.transport.net;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.IdlePolicy;
import io.jccl.internal.base.ParkSleeper;
import io.jccl.internal.proxy.ProxyConnection;
import io.jccl.internal.proxy.ProxyThread;
import io.jccl.internal.transport.ConnFifo;
import io.jccl.internal.transport.RecvConn;
import io.jccl.internal.transport.SendConn;
import io.jccl.internal.transport.Transport;
import io.jccl.net.NetListen;
import io.jccl.net.NetPlugin;

import java.lang.foreign.Arena;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The network transport over a {@link NetPlugin}: each connector has a FIFO in local memory on both sides,
 * registered with the plugin; the proxy thread moves slots between the sender's FIFO, the plugin and the receiver's
 * FIFO ({@link NetSendProxy}, {@link NetRecvProxy}). Setup: the receiver listens and announces an offer (plugin
 * handle, hello challenge, slot size, checksum wish); the sender connects and sends an authenticated hello as its
 * first message; the receiver drops connections whose hello is wrong and waits on ({@link NetHandshake}).
 *
 * <p>Owned by: created per communicator; setup methods run on the launching thread, data moves on the proxy thread.
 * Mirrors: transport/net.cc.
 */
public final class NetTransport implements Transport {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Supplier<Arena> arena;
    private final ProxyThread proxy;
    private final CommHealth health;
    private final NetHandshake setup;
    private final NetPlugin plugin;
    private final String name;
    private final int rank;
    private final long timeoutNs;
    private final IdlePolicy policy;
    private final boolean checksum;
    /** The proxy sides of this transport's connectors, until {@link #release()}. */
    private final List<ProxyConnection> live = new CopyOnWriteArrayList<>();

    public NetTransport(Arena arena, ProxyThread proxy, CommHealth health, NetPlugin plugin, int dev, AuthKeys keys,
                        int rank, long timeoutNs, IdlePolicy policy, boolean checksum) {
        this(() -> arena, proxy, health, plugin, dev, keys, rank, timeoutNs, policy, checksum);
    }

    /**
     * {@code arena}: where each connector's FIFO is allocated, asked at each setup (a communicator that can be
     * suspended hands out a new arena after each suspend).
     */
    public NetTransport(Supplier<Arena> arena, ProxyThread proxy, CommHealth health, NetPlugin plugin, int dev,
                        AuthKeys keys, int rank, long timeoutNs, IdlePolicy policy, boolean checksum) {
        this.arena = arena;
        this.proxy = proxy;
        this.health = health;
        this.plugin = plugin;
        this.name = "NET/" + plugin.name();
        this.setup = new NetHandshake(arena, health, plugin, dev, name, keys, rank, timeoutNs);
        this.rank = rank;
        this.timeoutNs = timeoutNs;
        this.policy = policy;
        this.checksum = checksum;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public PendingRecv setupRecv(int peer, int channel, int stepBytes) {
        NetListen l = setup.listen(peer, channel);
        NetOffer offer = new NetOffer(RANDOM.nextLong(), stepBytes, checksum, l.handle());
        return new PendingRecv() {
            @Override
            public byte[] info() {
                return offer.toBytes();
            }

            @Override
            public RecvConn complete() {
                String who = "rank " + rank + " channel " + channel + " from rank " + peer;
                NetPlugin.RecvComm comm = setup.accept(l, offer.nonce(), peer, channel, who);
                ConnFifo fifo = ConnFifo.allocate(arena.get(), stepBytes, stepBytes + NetSlots.TRAILER_BYTES);
                NetPlugin.MemHandle mh = setup.register(comm, fifo.data(), who);
                RecvConn conn = new RecvConn(fifo, proxy::wake, health, timeoutNs, policy, new ParkSleeper(), rank,
                        peer, channel, name);
                add(new NetRecvProxy(fifo, NetSlots.framed(fifo), plugin, comm, mh, conn.backoff()::wake, false,
                        health, who, checksum, null));
                return conn;
            }
        };
    }

    @Override
    public SendConn connectSend(int peer, int channel, byte[] recvInfo) {
        NetOffer offer = NetOffer.fromBytes(recvInfo);
        String who = "rank " + rank + " channel " + channel + " to rank " + peer;
        NetPlugin.SendComm comm = setup.connect(offer, channel, who);
        ConnFifo fifo = ConnFifo.allocate(arena.get(), offer.stepBytes(), offer.stepBytes() + NetSlots.TRAILER_BYTES);
        NetPlugin.MemHandle mh = setup.register(comm, fifo.data(), who);
        SendConn conn = new SendConn(fifo, proxy::wake, health, timeoutNs, policy, new ParkSleeper(), rank, peer,
                channel, name);
        add(new NetSendProxy(fifo, NetSlots.framed(fifo), plugin, comm, mh, conn.backoff()::wake, false, health,
                who, offer.checksum(), null));
        return conn;
    }

    private void add(ProxyConnection c) {
        live.add(c);
        proxy.add(c);
    }

    /** Takes this transport's connectors off the proxy thread; their connections stay open until {@link #release}. */
    @Override
    public void quiesce() {
        if (!proxy.detach(live, timeoutNs)) {
            throw new JcclException(Result.INTERNAL_ERROR, "rank " + rank + ": the proxy thread did not let go of "
                    + name + " connectors within " + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(timeoutNs)
                    + " ms");
        }
    }

    /** Closes the connections of every connector taken off the proxy (the peers stopped moving data too). */
    @Override
    public void release() {
        for (ProxyConnection c : live) {
            c.close();
        }
        live.clear();
    }
}
