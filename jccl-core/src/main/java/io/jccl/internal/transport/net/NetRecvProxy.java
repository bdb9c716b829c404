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
 * Proxy side of a network receive connector, a state machine over the plugin: <b>post</b> an {@code irecv} into
 * every slot the worker has freed (head) and this proxy has finished with, up to {@link ConnFifo#NSTEPS} ahead;
 * <b>done</b> when {@code test} says it arrived, in order: in framed mode check the trailer (the CRC32C when checksums
 * are on, then the step number, so corruption and a desynchronised stream fail loudly) and publish size and tag, in
 * bare mode check that a slot of at most {@code slotBytes} came (the receiving kernel knows how much it expects), and
 * with checksums also receive the slot's {@link BareTrailers trailer} (a second {@code irecv} per slot, into the
 * trailers' own memory) and check its CRC32C, step and tag; then release tail and wake the worker. A
 * slot that fails a check is never released and the communicator fails: a Simple kernel never reads it (one on the
 * LL protocol reads lines as they land, and is stopped with the communicator). A
 * polled connector's worker is a kernel, which cannot wake the proxy when it frees a slot: the proxy never sleeps in
 * its selector while it has one.
 *
 * <p>With GPUDirect RDMA ({@link #flushing}) the slots are device memory and each one received is flushed
 * ({@link NetPlugin#iflush}) before its tail advances, as NCCL flushes a Simple receive before the kernel may read it.
 *
 * <p>Owned by: the proxy thread. Mirrors: net.cc recvProxyProgress (post / receive / flush / done).
 */
final class NetRecvProxy implements ProxyConnection {
    private static final SelectableChannel[] NONE = new SelectableChannel[0];
    private final SlotWords words;
    private final NetSlots slots;
    private final NetPlugin plugin;
    private final NetPlugin.RecvComm comm;
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
    /** Bare with checksums: the bytes of each step's slot received, which its trailer's CRC covers. */
    private final int[] wireBytes = new int[ConnFifo.NSTEPS];
    private long posted;
    private long received;
    /** The receive of step {@code posted}'s slot was posted, its trailer's not yet. */
    private boolean trailerOwed;
    private volatile boolean closing;
    private final PeerLoss peerLoss = new PeerLoss();
    /** GPUDirect RDMA: each bare slot received is flushed ({@link NetPlugin#iflush}) before its tail advances. */
    private boolean flush;
    /** The flush of step {@code received} still in flight, else null. */
    private NetPlugin.Request flushing;

    /**
     * {@code words}: head read, tail written; {@code mh}: the registration of {@code slots.data()}; {@code polled}:
     * the worker cannot wake the proxy (a kernel); {@code checksum}: framed slots carry a CRC32C; {@code trailers}:
     * bare slots are followed by a checksummed trailer (null: not).
     */
    NetRecvProxy(SlotWords words, NetSlots slots, NetPlugin plugin, NetPlugin.RecvComm comm, NetPlugin.MemHandle mh,
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

    /** Flushes each slot received before the worker may read it (the slots are device memory: GPUDirect RDMA). */
    NetRecvProxy flushing(boolean on) {
        this.flush = on;
        return this;
    }

    @Override
    public boolean progress() {
        boolean moved = false;
        try {
            // a slot is posted again only once this proxy is done with its last step too: a worker that reads
            // slots as their bytes land (the GPU's LL protocol) may free one before its trailer was checked
            long limit = Math.min(words.head(), received) + ConnFifo.NSTEPS;
            while (posted < limit) {
                int i = (int) (posted & (ConnFifo.NSTEPS - 1));
                if (!trailerOwed) {
                    NetPlugin.Request r = plugin.irecv(comm, mh, slots.slotOffset(posted), slots.wireBytes(),
                            (int) posted);
                    if (r == null) {
                        break;
                    }
                    reqs[i] = r;
                    moved = true;
                    trailerOwed = trailers != null;
                }
                if (trailerOwed) {
                    NetPlugin.Request t = plugin.irecv(comm, trailers.mh(), trailers.offset(posted),
                            NetSlots.TRAILER_BYTES, (int) posted);
                    if (t == null) {
                        break;
                    }
                    trailerReqs[i] = t;
                    trailerOwed = false;
                }
                posted++;
            }
            while (received < posted) {
                int i = (int) (received & (ConnFifo.NSTEPS - 1));
                if (flushing != null) {
                    if (!plugin.test(flushing)) {
                        break;
                    }
                    flushing = null;
                    publish();
                    moved = true;
                    continue;
                }
                NetPlugin.Request r = reqs[i];
                if (r != null) {
                    if (!plugin.test(r)) {
                        break;
                    }
                    reqs[i] = null;
                    wireBytes[i] = r.sizeBytes();
                    if (!deliver(r.sizeBytes())) {
                        return false;
                    }
                    moved = true;
                    if (trailers == null) {
                        continue;
                    }
                }
                NetPlugin.Request t = trailerReqs[i];
                if (!plugin.test(t)) {
                    break;
                }
                trailerReqs[i] = null;
                if (!verifyTrailer(t.sizeBytes(), wireBytes[i])) {
                    return false;
                }
                publish();
                moved = true;
            }
        } catch (IOException | RuntimeException e) {
            if (!closing && !health.isBroken() && !health.isClosing()) {
                if (!peerLoss.reportNow()) {
                    return false;   // the peer's failure notice may still arrive and name the root cause
                }
                health.fail(new JcclException(Result.REMOTE_ERROR, name + ": receive of step " + received
                        + " failed: " + e.getMessage() + " (the peer exited, aborted or crashed)", e));
            }
            closing = true;
            return false;
        }
        return moved;
    }

    private boolean deliver(int wire) {
        if (slots.bare()) {
            if (wire <= 0 || wire > slots.stepBytes()) {
                return corrupt("corrupted stream: a message of " + wire + " bytes for step " + received
                        + " (slots hold 1 to " + slots.stepBytes() + ")");
            }
            if (trailers != null) {
                return true;     // the slot waits for its trailer
            }
            return flush ? flush(wire) : publish();
        }
        int size = wire - NetSlots.TRAILER_BYTES;
        if (size < 0 || size > slots.stepBytes()) {
            return corrupt("corrupted stream: a message of " + wire + " bytes for step " + received
                    + " (slots hold " + slots.stepBytes() + " + " + NetSlots.TRAILER_BYTES + ")");
        }
        if (checksum) {
            int got = slots.crc(received, size);
            int sent = slots.sentCrc(received, size);
            if (got != sent) {
                return corrupt(crcMismatch(got, sent, size));
            }
        }
        int step = slots.step(received, size);
        if (step != (int) received) {
            return corrupt("corrupted stream: got step " + step + " size " + size + ", expected step "
                    + (int) received);
        }
        slots.publish(received, size);
        return publish();
    }

    /**
     * Bare with checksums: checks the trailer of the slot received, {@code slotWire} bytes (its CRC32C first, which
     * covers step and tag).
     */
    private boolean verifyTrailer(int wire, int slotWire) {
        if (wire != NetSlots.TRAILER_BYTES) {
            return corrupt("corrupted stream: a trailer of " + wire + " bytes for step " + received + " (trailers are "
                    + NetSlots.TRAILER_BYTES + ")");
        }
        int got = trailers.crc(received, slotWire);
        int sent = trailers.sentCrc(received);
        if (got != sent) {
            return corrupt(crcMismatch(got, sent, slotWire));
        }
        int step = trailers.step(received);
        long tag = trailers.sentTag(received);
        if (step != (int) received || tag != trailers.tag()) {
            return corrupt("corrupted stream: got the trailer of step " + step + " tag " + Long.toHexString(tag)
                    + ", expected step " + (int) received + " tag " + Long.toHexString(trailers.tag()));
        }
        return true;
    }

    private String crcMismatch(int got, int sent, int size) {
        return String.format("data corrupted in transit (CRC32C %08x computed, %08x sent) at step %d, %d bytes", got,
                sent, received, size);
    }

    /** GPUDirect RDMA: flushes the slot just received, then publishes it (at once, or once the flush is done). */
    private boolean flush(int wire) {
        try {
            flushing = plugin.iflush(comm, mh, slots.slotOffset(received), wire);
        } catch (IOException e) {
            return corrupt("the flush of step " + received + " (GPUDirect RDMA) failed: " + e.getMessage());
        }
        return flushing != null || publish();
    }

    /** Hands the step received to the worker. */
    private boolean publish() {
        words.releaseTail(++received);
        VarHandle.fullFence();
        worker.wake();
        return true;
    }

    private boolean corrupt(String what) {
        closing = true;
        health.fail(new JcclException(Result.REMOTE_ERROR, name + ": " + what));
        return false;
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
        return !polled && comm instanceof PollableComm p && p.wakesOnChannels();
    }

    @Override
    public void close() {
        closing = true;
        try {
            plugin.closeRecv(comm);
        } catch (IOException | RuntimeException ignored) {
            // closing anyway
        }
    }
}
