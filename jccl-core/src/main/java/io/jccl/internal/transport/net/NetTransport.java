package io.jccl.internal.transport.net;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.IdlePolicy;
import io.jccl.internal.base.ParkSleeper;
import io.jccl.internal.debug.Log;
import io.jccl.internal.proxy.ProxyThread;
import io.jccl.internal.transport.ConnFifo;
import io.jccl.internal.transport.RecvConn;
import io.jccl.internal.transport.SendConn;
import io.jccl.internal.transport.Transport;
import io.jccl.net.NetListen;
import io.jccl.net.NetPlugin;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The network transport over a {@link NetPlugin}: each connector has a FIFO in local memory on both sides,
 * registered with the plugin; the proxy thread moves slots between the sender's FIFO, the plugin and the receiver's
 * FIFO ({@link NetSendProxy}, {@link NetRecvProxy}). Setup: the receiver listens and announces an offer (plugin
 * handle, hello challenge, slot size, checksum wish); the sender connects and sends an authenticated hello as its
 * first message; the receiver drops connections whose hello is wrong and waits on.
 *
 * <p>Owned by: created per communicator; setup methods run on the launching thread, data moves on the proxy thread.
 * Mirrors: transport/net.cc.
 */
public final class NetTransport implements Transport {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final long HELLO_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);
    private static final long SETUP_PARK_NS = 50_000;

    private final Arena arena;
    private final ProxyThread proxy;
    private final CommHealth health;
    private final NetPlugin plugin;
    private final int dev;
    private final String name;
    private final AuthKeys keys;
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
        this.dev = dev;
        this.name = "NET/" + plugin.name();
        this.keys = keys;
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
        NetListen l;
        try {
            l = plugin.listen(dev);
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "rank " + rank + ": " + name + " cannot listen for channel "
                    + channel + " from rank " + peer + ": " + e.getMessage(), e);
        }
        NetOffer offer = new NetOffer(RANDOM.nextLong(), stepBytes, checksum, l.handle());
        return new PendingRecv() {
            @Override
            public byte[] info() {
                return offer.toBytes();
            }

            @Override
            public RecvConn complete() {
                String who = "rank " + rank + " channel " + channel + " from rank " + peer;
                NetPlugin.RecvComm comm;
                try {
                    comm = acceptAuthenticated(l, offer.nonce(), peer, channel, who);
                } finally {
                    try {
                        plugin.closeListen(l.comm());
                    } catch (IOException ignored) {
                        // the connection is made or failed; the listener is no longer needed
                    }
                }
                ConnFifo fifo = ConnFifo.allocate(arena, stepBytes, stepBytes + NetSlots.TRAILER_BYTES);
                NetPlugin.MemHandle mh = register(comm, fifo.data(), who);
                RecvConn conn = new RecvConn(fifo, proxy::wake, health, timeoutNs, policy, new ParkSleeper(), rank,
                        peer, channel, name);
                proxy.add(new NetRecvProxy(fifo, plugin, comm, mh, conn.backoff(), health, who, checksum));
                return conn;
            }
        };
    }

    @Override
    public SendConn connectSend(int peer, int channel, byte[] recvInfo) {
        NetOffer offer = NetOffer.fromBytes(recvInfo);
        String who = "rank " + rank + " channel " + channel + " to rank " + peer;
        long deadline = System.nanoTime() + timeoutNs;
        NetPlugin.SendComm comm;
        try {
            while ((comm = plugin.connect(dev, offer.handle())) == null) {
                await(deadline, who + ": connecting");
            }
        } catch (IOException e) {
            throw new JcclException(Result.REMOTE_ERROR, who + ": cannot connect: " + e.getMessage()
                    + " (the peer exited, aborted or crashed)", e);
        }
        MemorySegment hello = arena.allocate(NetHello.BYTES);
        MemorySegment.copy(NetHello.hello(keys, offer.nonce(), rank, channel), 0, hello, ValueLayout.JAVA_BYTE, 0,
                NetHello.BYTES);
        NetPlugin.MemHandle helloMh = register(comm, hello, who);
        try {
            NetPlugin.Request r;
            while ((r = plugin.isend(comm, helloMh, 0, NetHello.BYTES, NetHello.TAG)) == null) {
                await(deadline, who + ": sending hello");
            }
            while (!plugin.test(r)) {
                await(deadline, who + ": sending hello");
            }
            plugin.deregMr(comm, helloMh);
        } catch (IOException e) {
            throw new JcclException(Result.REMOTE_ERROR, who + ": hello failed: " + e.getMessage()
                    + " (the peer exited, aborted or crashed)", e);
        }
        ConnFifo fifo = ConnFifo.allocate(arena, offer.stepBytes(), offer.stepBytes() + NetSlots.TRAILER_BYTES);
        NetPlugin.MemHandle mh = register(comm, fifo.data(), who);
        SendConn conn = new SendConn(fifo, proxy::wake, health, timeoutNs, policy, new ParkSleeper(), rank, peer,
                channel, name);
        proxy.add(new NetSendProxy(fifo, plugin, comm, mh, conn.backoff(), health, who, offer.checksum()));
        return conn;
    }

    /** Accepts connections until one says hello as rank {@code peer} for {@code channel} of this communicator. */
    private NetPlugin.RecvComm acceptAuthenticated(NetListen l, long nonce, int peer, int channel, String who) {
        long deadline = System.nanoTime() + timeoutNs;
        MemorySegment buf = arena.allocate(NetHello.BYTES);
        while (true) {
            NetPlugin.RecvComm comm;
            try {
                while ((comm = plugin.accept(l.comm())) == null) {
                    if (System.nanoTime() > deadline) {
                        throw new JcclException(Result.TIMEOUT, "rank " + rank + ": rank " + peer + " did not connect "
                                + "its data channel " + channel + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNs)
                                + " ms");
                    }
                    await(deadline, who + ": waiting for the peer to connect");
                }
            } catch (IOException e) {
                throw new JcclException(Result.SYSTEM_ERROR, who + ": accept failed: " + e.getMessage(), e);
            }
            if (helloFrom(comm, buf, nonce, peer, channel, Math.min(deadline, System.nanoTime() + HELLO_TIMEOUT_NS))) {
                return comm;
            }
            Log.warn(rank, "data channel %d: dropped a connection that is not rank %d of this communicator", channel,
                    peer);
            try {
                plugin.closeRecv(comm);
            } catch (IOException ignored) {
                // dropping it anyway
            }
        }
    }

    private boolean helloFrom(NetPlugin.RecvComm comm, MemorySegment buf, long nonce, int peer, int channel,
                              long deadline) {
        try {
            NetPlugin.MemHandle mh = plugin.regMr(comm, buf);
            NetPlugin.Request r;
            while ((r = plugin.irecv(comm, mh, 0, NetHello.BYTES, NetHello.TAG)) == null) {
                if (!pause(deadline)) {
                    return false;
                }
            }
            while (!plugin.test(r)) {
                if (!pause(deadline)) {
                    return false;
                }
            }
            plugin.deregMr(comm, mh);
            return r.sizeBytes() == NetHello.BYTES
                    && NetHello.check(keys, nonce, peer, channel, buf.toArray(ValueLayout.JAVA_BYTE));
        } catch (IOException e) {
            return false;
        }
    }

    private boolean pause(long deadline) {
        if (health.isBroken()) {
            throw health.brokenError("rank " + rank + " waiting for a data connection's hello");
        }
        LockSupport.parkNanos(SETUP_PARK_NS);
        return System.nanoTime() < deadline;
    }

    private void await(long deadline, String what) {
        if (health.isBroken()) {
            throw health.brokenError(what);
        }
        if (System.nanoTime() > deadline) {
            throw new JcclException(Result.TIMEOUT, what + ": no progress within "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
        }
        LockSupport.parkNanos(SETUP_PARK_NS);
    }

    private NetPlugin.MemHandle register(NetPlugin.Comm comm, MemorySegment seg, String who) {
        try {
            return plugin.regMr(comm, seg);
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, who + ": " + name + " cannot register " + seg.byteSize()
                    + " bytes: " + e.getMessage(), e);
        }
    }
}
