package io.jccl.internal.transport.net;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.debug.Log;
import io.jccl.net.NetListen;
import io.jccl.net.NetPlugin;
import io.jccl.net.NetProperties;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The setup every network connector makes, whatever memory its slots live in: the receiver listens and offers
 * ({@link NetOffer}); the sender connects and sends an authenticated hello ({@link NetHello}) as its first message;
 * the receiver accepts connections until one says the hello of the expected peer and channel, dropping the others.
 * Every wait checks the communicator's health and a deadline; every error names this rank, the peer and the channel.
 *
 * <p>Owned by: the thread that sets up the communicator's connections. Mirrors: net.cc sendSetup / sendConnect /
 * recvSetup / recvConnect (ncclNet listen, connect, accept).
 */
final class NetHandshake {
    private static final long HELLO_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);
    private static final long SETUP_PARK_NS = 50_000;

    private final java.util.function.Supplier<Arena> arena;
    private final CommHealth health;
    private final NetPlugin plugin;
    private final int dev;
    private final String name;
    private final AuthKeys keys;
    private final int rank;
    private final long timeoutNs;

    /** {@code arena}: the communicator's, for the hello buffers; {@code name}: the transport's, for errors. */
    NetHandshake(java.util.function.Supplier<Arena> arena, CommHealth health, NetPlugin plugin, int dev, String name,
                 AuthKeys keys, int rank, long timeoutNs) {
        this.arena = arena;
        this.health = health;
        this.plugin = plugin;
        this.dev = dev;
        this.name = name;
        this.keys = keys;
        this.rank = rank;
        this.timeoutNs = timeoutNs;
    }

    NetPlugin plugin() {
        return plugin;
    }

    /** Listens for the connection of (peer → this rank, channel). */
    NetListen listen(int peer, int channel) {
        try {
            return plugin.listen(dev);
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "rank " + rank + ": " + name + " cannot listen for channel "
                    + channel + " from rank " + peer + ": " + e.getMessage(), e);
        }
    }

    /** Closes a listener whose connection is made or failed. */
    void closeListen(NetListen l) {
        try {
            plugin.closeListen(l.comm());
        } catch (IOException ignored) {
            // the listener is no longer needed
        }
    }

    /** Connects to the receiver that made {@code offer} and says hello as this rank for {@code channel}. */
    NetPlugin.SendComm connect(NetOffer offer, int channel, String who) {
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
        MemorySegment hello = arena.get().allocate(NetHello.BYTES);
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
        } catch (IOException | JcclException e) {
            closeSend(comm);
            if (e instanceof JcclException j) {
                throw j;
            }
            throw new JcclException(Result.REMOTE_ERROR, who + ": hello failed: " + e.getMessage()
                    + " (the peer exited, aborted or crashed)", e);
        }
        return comm;
    }

    /**
     * Accepts connections on {@code l} until one says hello as rank {@code peer} for {@code channel} of this
     * communicator, for the offer {@code nonce}; closes the listener.
     */
    NetPlugin.RecvComm accept(NetListen l, long nonce, int peer, int channel, String who) {
        try {
            return acceptAuthenticated(l, nonce, peer, channel, who);
        } finally {
            closeListen(l);
        }
    }

    private NetPlugin.RecvComm acceptAuthenticated(NetListen l, long nonce, int peer, int channel, String who) {
        long deadline = System.nanoTime() + timeoutNs;
        MemorySegment buf = arena.get().allocate(NetHello.BYTES);
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
            boolean ok;
            try {
                ok = helloFrom(comm, buf, nonce, peer, channel, Math.min(deadline, System.nanoTime()
                        + HELLO_TIMEOUT_NS));
            } catch (JcclException e) {
                closeRecv(comm);
                throw e;
            }
            if (ok) {
                return comm;
            }
            Log.warn(rank, "data channel %d: dropped a connection that is not rank %d of this communicator", channel,
                    peer);
            closeRecv(comm);
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

    /** Registers {@code seg} for transfers on {@code comm}. */
    NetPlugin.MemHandle register(NetPlugin.Comm comm, MemorySegment seg, String who) {
        return register(comm, seg, NetProperties.PTR_HOST, who);
    }

    /** Registers {@code seg} as memory of {@code ptrType} (NetProperties' PTR_* bits). */
    NetPlugin.MemHandle register(NetPlugin.Comm comm, MemorySegment seg, int ptrType, String who) {
        try {
            return ptrType == NetProperties.PTR_HOST ? plugin.regMr(comm, seg) : plugin.regMr(comm, seg, ptrType);
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, who + ": " + name + " cannot register " + seg.byteSize()
                    + " bytes" + (ptrType == NetProperties.PTR_CUDA ? " of device memory (GPUDirect RDMA)" : "")
                    + ": " + e.getMessage(), e);
        }
    }

    void closeSend(NetPlugin.SendComm comm) {
        try {
            plugin.closeSend(comm);
        } catch (IOException | RuntimeException ignored) {
            // failing anyway
        }
    }

    void closeRecv(NetPlugin.RecvComm comm) {
        try {
            plugin.closeRecv(comm);
        } catch (IOException | RuntimeException ignored) {
            // dropping it anyway
        }
    }
}
