package io.jccl.internal.transport.net;

import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.IdlePolicy;
import io.jccl.internal.base.ParkSleeper;
import io.jccl.internal.proxy.ProxyThread;
import io.jccl.internal.transport.ConnFifo;
import io.jccl.internal.transport.RecvConn;
import io.jccl.internal.transport.SendConn;
import io.jccl.internal.transport.Transport;
import io.jccl.net.NetListen;
import io.jccl.net.NetPlugin;

import java.lang.foreign.Arena;
import java.security.SecureRandom;

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

    private final Arena arena;
    private final ProxyThread proxy;
    private final CommHealth health;
    private final NetHandshake setup;
    private final NetPlugin plugin;
    private final String name;
    private final int rank;
    private final long timeoutNs;
    private final IdlePolicy policy;
    private final boolean checksum;

    public NetTransport(Arena arena, ProxyThread proxy, CommHealth health, NetPlugin plugin, int dev, AuthKeys keys,
                        int rank, long timeoutNs, IdlePolicy policy, boolean checksum) {
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
                ConnFifo fifo = ConnFifo.allocate(arena, stepBytes, stepBytes + NetSlots.TRAILER_BYTES);
                NetPlugin.MemHandle mh = setup.register(comm, fifo.data(), who);
                RecvConn conn = new RecvConn(fifo, proxy::wake, health, timeoutNs, policy, new ParkSleeper(), rank,
                        peer, channel, name);
                proxy.add(new NetRecvProxy(fifo, NetSlots.framed(fifo), plugin, comm, mh, conn.backoff()::wake, false,
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
        ConnFifo fifo = ConnFifo.allocate(arena, offer.stepBytes(), offer.stepBytes() + NetSlots.TRAILER_BYTES);
        NetPlugin.MemHandle mh = setup.register(comm, fifo.data(), who);
        SendConn conn = new SendConn(fifo, proxy::wake, health, timeoutNs, policy, new ParkSleeper(), rank, peer,
                channel, name);
        proxy.add(new NetSendProxy(fifo, NetSlots.framed(fifo), plugin, comm, mh, conn.backoff()::wake, false, health,
                who, offer.checksum(), null));
        return conn;
    }
}
