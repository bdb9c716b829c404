package io.jccl.internal.transport.net;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.Waker;
import io.jccl.internal.proxy.ProxyConnection;
import io.jccl.internal.transport.ConnFifo;
import io.jccl.internal.transport.SlotWords;
import io.jccl.internal.transport.net.socket.PollableComm;
import io.jccl.net.NetPlugin;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.channels.SelectableChannel;

/**
 * Proxy side of a network send connector, a state machine over the plugin: <b>post</b> each slot the worker
 * published (tail) as one {@code isend}, with its trailer (tag, step, CRC32C) in framed mode, the bytes the
 * producer wrote in bare mode, followed in bare mode with checksums by a second {@code isend} of the slot's sealed
 * {@link BareTrailers trailer}, up to {@link ConnFifo#NSTEPS} slots in flight; <b>done</b> when {@code test} says
 * the slot (and its trailer) left, in order: return the slot (head) and wake the worker. A polled connector's worker
 * is a kernel, which cannot wake the proxy: the proxy never sleeps in its selector while it has one.
 *
 * <p>Owned by: the proxy thread. Mirrors: net.cc sendProxyProgress (post / transmit / done).
 */
final class NetSendProxy implements ProxyConnection {
    private static final SelectableChannel[] NONE = new SelectableChannel[0];
    private final SlotWords words;
    private final NetSlots slots;
    private final NetPlugin plugin;
    private final NetPlugin.SendComm comm;
    private final NetPlugin.MemHandle mh;
    private final Waker worker;
    private final boolean polled;
    private final CommHealth health;
    private final String name;
    private final boolean checksum;
    /** Bare slots' trailers when checksums are on, else null. */
    private final BareTrailers trailers;
    private final NetPlugin.Request[] reqs = new NetPlugin.Request[ConnFifo.NSTEPS];
    private final NetPlugin.Request[] trailerReqs = new NetPlugin.Request[ConnFifo.NSTEPS];
    private long posted;
    private long done;
    /** The slot of step {@code posted} was posted, its trailer not yet (the plugin took no more requests). */
    private boolean trailerOwed;
    private volatile boolean closing;
    private final PeerLoss peerLoss = new PeerLoss();

    /**
     * {@code words}: tail read, head written; {@code mh}: the registration of {@code slots.data()}; {@code polled}:
     * the worker cannot wake the proxy (a kernel); {@code checksum}: framed slots carry a CRC32C; {@code trailers}:
     * bare slots are followed by a checksummed trailer (null: not).
     */
    NetSendProxy(SlotWords words, NetSlots slots, NetPlugin plugin, NetPlugin.SendComm comm, NetPlugin.MemHandle mh,
                 Waker worker, boolean polled, CommHealth health, String name, boolean checksum,
                 BareTrailers trailers) {
        this.words = words;
        this.slots = slots;
        this.plugin = plugin;
        this.comm = comm;
        this.mh = mh;
        this.worker = worker;
        this.polled = polled;
        this.health = health;
        this.name = name;
        this.checksum = checksum;
        this.trailers = trailers;
    }

    @Override
    public boolean progress() {
        boolean moved = false;
        try {
            long tail = words.tail();
            while (posted < tail && posted - done < ConnFifo.NSTEPS) {   // a producer past its credit waits here
                int i = (int) (posted & (ConnFifo.NSTEPS - 1));
                if (!trailerOwed) {
                    int wire = slots.seal(posted, checksum);
                    NetPlugin.Request r = plugin.isend(comm, mh, slots.slotOffset(posted), wire, (int) posted);
                    if (r == null) {
                        break;
                    }
                    reqs[i] = r;
                    moved = true;
                    if (trailers != null) {
                        trailers.seal(posted, wire);     // the kernel leaves the slot alone until its credit
                        trailerOwed = true;
                    }
                }
                if (trailerOwed) {
                    NetPlugin.Request t = plugin.isend(comm, trailers.mh(), trailers.offset(posted),
                            NetSlots.TRAILER_BYTES, (int) posted);
                    if (t == null) {
                        break;
                    }
                    trailerReqs[i] = t;
                    trailerOwed = false;
                }
                posted++;
            }
            while (done < posted) {
                int i = (int) (done & (ConnFifo.NSTEPS - 1));
                if (reqs[i] != null) {
                    if (!plugin.test(reqs[i])) {
                        break;
                    }
                    reqs[i] = null;
                }
                if (trailerReqs[i] != null) {
                    if (!plugin.test(trailerReqs[i])) {
                        break;
                    }
                    trailerReqs[i] = null;
                }
                words.releaseHead(++done);
                VarHandle.fullFence();
                worker.wake();
                moved = true;
            }
        } catch (IOException | RuntimeException e) {
            if (!closing && !health.isBroken() && !health.isClosing()) {
                if (!peerLoss.reportNow()) {
                    return false;   // the peer's failure notice may still arrive and name the root cause
                }
                health.fail(new JcclException(Result.REMOTE_ERROR, name + ": send of step " + done + " failed: "
                        + e.getMessage() + " (the peer exited, aborted or crashed)", e));
            }
            closing = true;
            return false;
        }
        return moved;
    }

    @Override
    public SelectableChannel[] channels() {
        return comm instanceof PollableComm p ? p.channels() : NONE;
    }

    @Override
    public int sleepInterest(int i) {
        return ((PollableComm) comm).sleepInterest(i);
    }

    @Override
    public boolean canSleep() {
        if (polled) {
            return false;
        }
        if (comm instanceof PollableComm p) {
            return p.wakesOnChannels();
        }
        return done == posted && !trailerOwed;
    }

    @Override
    public void close() {
        closing = true;
        try {
            plugin.closeSend(comm);
        } catch (IOException | RuntimeException ignored) {
            // closing anyway
        }
    }
}
