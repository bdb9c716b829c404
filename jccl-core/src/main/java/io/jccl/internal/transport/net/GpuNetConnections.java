package io.jccl.internal.transport.net;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.SuspendableArena;
import io.jccl.internal.base.Waker;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.proxy.ProxyConnection;
import io.jccl.internal.proxy.ProxyThread;
import io.jccl.internal.transport.ConnFifo;
import io.jccl.internal.transport.PeerExchange;
import io.jccl.net.NetListen;
import io.jccl.net.NetPlugin;
import io.jccl.net.NetProperties;

import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Network connectors for GPU kernels: the proxy thread carries a kernel's Simple-protocol slots between hosts
 * through the communicator's {@link NetPlugin}. Each (owner rank, peer, channel) has a control block the kernel
 * polls ({@link Block}); for a peer on another host the kernel writes into a local <em>mirror</em> of the peer's block
 * in pinned host memory, and this class moves the mirror's contents to the peer's own block and credits back:
 * <ul>
 *   <li><b>send</b> (this rank → peer): when the kernel published step {@code s} (mirror tail {@code > s}), the
 *   proxy sends the bytes of mirror slot {@code s % 8} the kernel wrote (its size word for that step); once the
 *   plugin says it (and its trailer, below) left, the proxy writes the credit {@code s + 1} into the own block's
 *   head, which the kernel polls before reusing the slot;</li>
 *   <li><b>receive</b> (peer → this rank): the proxy keeps receives posted into the own block's slots up to the
 *   head the kernel wrote into the mirror plus 8, and as each arrives it advances the own block's tail.</li>
 * </ul>
 * Slots are bare ({@link NetSlots#bare}: exactly {@code slotBytes} apart, no room for a trailer: the layout the
 * kernels are compiled for), the proxy writes counters with release stores and reads them with acquire loads, wakes
 * no worker, and never sleeps in its selector while it has one of these connectors (a kernel cannot wake it).
 * Counters only grow, across kernel launches too.
 *
 * <p>Checksums ({@code JCCL_NET_CHECKSUM}, {@link NetChecksum}: on by default when ranks span hosts): the receiver's
 * offer says whether it wants them, and the sender follows the offer, so both ends of a link agree. With them, each
 * slot's message is followed by a 16-byte trailer message from memory of the connector's own ({@link BareTrailers}:
 * the link's tag, the step, and a CRC32C over the bytes sent, tag and step, computed by the sending proxy from the
 * slot the kernel published); the receiving proxy receives the slot into the kernel's FIFO and the trailer into its
 * own memory, and checks both before it advances the tail the kernel polls. A mismatch fails the communicator with
 * {@code REMOTE_ERROR} "rank R GPU channel C from rank P: data corrupted in transit (CRC32C ... computed, ... sent)
 * at step S, N bytes", and the tail never covers that slot, so no kernel consumes the bad bytes. The kernels and
 * their slots are the same either way; the cost is one small message and a CRC32C of the slot on each side's proxy
 * thread per step. The proxy reads the slots to checksum them: they must be host memory the CPU can read (as they
 * are without GPUDirect RDMA).
 *
 * <p>Setup is NCCL's: the receiver listens and offers ({@link NetOffer}); the sender connects and sends its
 * authenticated {@link NetHello}; the receiver accepts only that hello. {@link #connect} does all three phases,
 * exchanging the offers through the bootstrap; {@link #listen} and {@link #connectSend} are the phases for a caller
 * that exchanges offers itself. Every wait checks the communicator's health and its timeout; every error names this
 * rank, the peer and the channel.
 *
 * <p>The memory passed in must stay valid until the communicator's proxy thread has stopped (its host communicator
 * closed or aborted): the proxy reads and writes it until then.
 *
 * <p>Owned by: the thread that sets up the GPU communicator's connections (one at a time); the connectors run on
 * the proxy thread. Mirrors: transport/net.cc with host-memory buffers as the GPU-side FIFO, or device memory
 * registered as NCCL_PTR_CUDA with GPUDirect RDMA ({@link Link#gdr}: the receive side flushes each slot with the
 * plugin's iflush before the tail advances, and asks for no checksum), plus the CRC32C check NCCL does not have.
 */
public final class GpuNetConnections {
    /** Bootstrap tag of the offers {@link #connect} exchanges: this plus the channel. */
    private static final int TAG_OFFER = 0x4a43_5200;
    /** Channels a link may name. */
    public static final int MAX_CHANNELS = 256;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final ProxyThread proxy;
    private final CommHealth health;
    private final NetHandshake setup;
    private final NetPlugin plugin;
    private final int dev;
    private final String name;
    private final int rank;
    private final int nRanks;
    private final PeerExchange exchange;
    private final Set<Long> made = new HashSet<>();
    private final SuspendableArena arena;
    private final boolean checksum;
    /** The proxy sides of the links made, until {@link #release()}. */
    private final List<ProxyConnection> live = new CopyOnWriteArrayList<>();

    /**
     * True once the proxy thread that moves these connectors has ended (its host communicator was closed or aborted
     * and the thread stopped in time): only then may the memory given to {@link #connect} be freed.
     */
    public boolean proxyEnded() {
        return proxy.ended();
    }

    /**
     * The memory of one control block as the kernel uses it.
     *
     * @param slots {@link ConnFifo#NSTEPS} slots, {@code slotBytes} apart from the segment's start
     * @param tail  the 8-aligned word of the steps put into this block's slots
     * @param sizes {@link ConnFifo#NSTEPS} 8-aligned words: the bytes the producer put into the slot of step
     *              {@code s} at {@code s % NSTEPS}, written before the tail that publishes {@code s}
     * @param head  the 8-aligned word of the credits for the opposite direction
     */
    public record Block(MemorySegment slots, MemorySegment tail, MemorySegment sizes, MemorySegment head) {
    }

    /**
     * One connector to make. A send link moves {@code mirror.slots} to the peer, reading {@code mirror.tail} and
     * writing {@code own.head}; a receive link fills {@code own.slots}, reading {@code mirror.head} and writing
     * {@code own.tail}. The peer makes the link of the opposite direction with the same channel and slot size.
     *
     * @param peer      the other rank
     * @param channel   the channel, in {@code [0, MAX_CHANNELS)}
     * @param isSend    true: this rank → peer; false: peer → this rank
     * @param slotBytes bytes of one slot (the stride of both blocks' slots)
     * @param own       this rank's block for the peer on that channel
     * @param mirror    the local mirror of the peer's block for this rank on that channel
     * @param gdr       the slots this link moves are device memory the CPU can address (GPUDirect RDMA): they are
     *                  registered as {@link NetProperties#PTR_CUDA}, a receive link flushes each slot
     *                  ({@link NetPlugin#iflush}) before its tail advances and asks its sender for no checksum
     */
    public record Link(int peer, int channel, boolean isSend, int slotBytes, Block own, Block mirror, boolean gdr) {
        /** A link over host memory (no GPUDirect RDMA). */
        public Link(int peer, int channel, boolean isSend, int slotBytes, Block own, Block mirror) {
            this(peer, channel, isSend, slotBytes, own, mirror, false);
        }

        /** How the plugin registers the slots. */
        int ptrType() {
            return gdr ? NetProperties.PTR_CUDA : NetProperties.PTR_HOST;
        }

        /** What the proxy reads from and writes into, by direction. */
        SplitWords words() {
            return isSend ? new SplitWords(mirror.tail(), own.head()) : new SplitWords(own.tail(), mirror.head());
        }

            /** The sizes of the steps a send link moves (the mirror's, written by the kernel); null for a receive. */
        MemorySegment sizes() {
            return isSend ? mirror.sizes().asSlice(0, 8L * ConnFifo.NSTEPS) : null;
        }

        /** The slots the plugin moves: the mirror's when sending, the own block's when receiving. */
        MemorySegment slots() {
            return (isSend ? mirror.slots() : own.slots()).asSlice(0, (long) ConnFifo.NSTEPS * slotBytes);
        }
    }

    /** A receive link that listens and offers, waiting for its sender. */
    public interface PendingRecv {
        /** The bytes the peer needs to connect its send link. */
        byte[] offer();

        /** Waits for the peer's connection and hands the connector to the proxy thread. */
        void accept();
    }

    /**
     * Connectors over {@code plugin}'s device {@code dev}, progressed by {@code proxy}, for rank {@code rank} of
     * {@code nRanks}. {@code arena}: for hello buffers and trailers, freed by {@link #release()}; {@code keys}: the
     * communicator's
     * (hellos); {@code exchange}: the bootstrap, for {@link #connect}; {@code timeoutNs}: the deadline of every setup
     * wait;
     * {@code checksum}: this rank's receive links ask their senders for a CRC32C trailer per slot
     * ({@link NetChecksum#enabled}).
     */
    public GpuNetConnections(SuspendableArena arena, ProxyThread proxy, CommHealth health, NetPlugin plugin, int dev,
                             AuthKeys keys, int rank, int nRanks, long timeoutNs, PeerExchange exchange,
                             boolean checksum) {
        this.proxy = proxy;
        this.health = health;
        this.plugin = plugin;
        this.dev = dev;
        this.name = "NET/" + plugin.name();
        this.setup = new NetHandshake(arena::arena, health, plugin, dev, name, keys, rank, timeoutNs);
        this.rank = rank;
        this.nRanks = nRanks;
        this.exchange = exchange;
        this.arena = arena;
        this.checksum = checksum;
    }

    /** True when this rank's receive links ask for a CRC32C per slot (its send links follow their receivers). */
    public boolean checksum() {
        return checksum;
    }

    /** The link speed of the network device in Mb/s, as the plugin reports it (NCCL's default 10 Gb/s if it cannot). */
    public int speedMbps() {
        try {
            int s = plugin.properties(dev).speedMbps();
            return s > 0 ? s : 10_000;
        } catch (java.io.IOException e) {
            return 10_000;
        }
    }

    /**
     * The network device's properties as the plugin reports them (its {@code ptrSupport} says whether GPUDirect RDMA
     * is possible), or null when the plugin cannot say.
     */
    public NetProperties properties() {
        try {
            return plugin.properties(dev);
        } catch (java.io.IOException e) {
            return null;
        }
    }

    /** The device index the links use. */
    public int device() {
        return dev;
    }

    /** The transport's name for logs ({@code NET/Socket}). */
    public String name() {
        return name;
    }

    /**
     * Makes every link of {@code links}: listens and sends an offer through the bootstrap for each receive link,
     * connects each send link with the offer its peer sent, then accepts each receive link's sender. Collective
     * with the peers named: each must make the matching links. A failure fails the communicator (so the peers stop
     * waiting) and is thrown.
     */
    public void connect(List<Link> links) {
        List<PendingRecv> pending = new ArrayList<>();
        try {
            for (Link l : links) {
                if (!l.isSend()) {
                    PendingRecv p = listen(l);
                    pending.add(p);
                    exchange.send(l.peer(), TAG_OFFER + l.channel(), p.offer());
                }
            }
            for (Link l : links) {
                if (l.isSend()) {
                    byte[] offer = exchange.recv(l.peer(), TAG_OFFER + l.channel(), "the GPU connection offer for "
                            + "channel " + l.channel() + " (the peer must connect the matching link)");
                    connectSend(l, offer);
                }
            }
            for (PendingRecv p : pending) {
                p.accept();
            }
        } catch (JcclException e) {
            for (PendingRecv p : pending) {
                ((Listening) p).abandon();
            }
            health.fail(e);
            throw e;
        }
    }

    /**
     * Makes {@code links} as {@link #connect} does, as a set that can be taken down without the communicator's other
     * links (a window's links to other hosts). Collective with the peers named. The caller then hands the set the
     * connector that plays the kernel's part on its blocks ({@link Apart#addPump}).
     */
    public synchronized Apart connectApart(List<Link> links) {
        int before = live.size();
        connect(links);
        List<Long> keys = new ArrayList<>(links.size());
        for (Link l : links) {
            keys.add(key(l));
        }
        return new Apart(new ArrayList<>(live.subList(before, live.size())), keys);
    }

    /**
     * Links made by {@link #connectApart}, with the connector that reads and writes their blocks on this side.
     * Taken down in two steps, as a suspend takes down all links: {@link #detach} on every rank, then (once every
     * rank detached, so no proxy sees a peer's connection close and takes it for a failure) {@link #close}.
     *
     * <p>Owned by: the thread that made it.
     */
    public final class Apart {
        private final List<ProxyConnection> conns;
        private final List<Long> keys;
        private boolean closed;

        private Apart(List<ProxyConnection> conns, List<Long> keys) {
            this.conns = conns;
            this.keys = keys;
        }

        /** Hands the proxy thread {@code pump}, progressed beside the links until {@link #detach}. */
        public void addPump(ProxyConnection pump) {
            conns.add(pump);
            add(pump);
        }

        /**
         * Takes the links and the pump off the proxy thread without closing them; true once it let go (or ended),
         * false when it did not within {@code timeoutNs}.
         */
        public boolean detach(long timeoutNs) {
            return proxy.detach(conns, timeoutNs);
        }

        /** Closes the links' connections and the pump; the same links may then be made again. */
        public void close() {
            synchronized (GpuNetConnections.this) {
                if (closed) {
                    return;
                }
                closed = true;
                for (ProxyConnection c : conns) {
                    c.close();
                }
                live.removeAll(conns);
                made.removeAll(keys);
            }
        }
    }

    /** Phase 1 of a receive link: listens; the offer goes to the peer, then {@link PendingRecv#accept}. */
    public PendingRecv listen(Link link) {
        check(link, false);
        NetListen l = setup.listen(link.peer(), link.channel());
        NetOffer offer = new NetOffer(RANDOM.nextLong(), link.slotBytes(), checksum && !link.gdr(), l.handle());
        return new Listening(link, l, offer);
    }

    /** Phase 2: connects a send link with the offer the peer's {@link #listen} made, and starts its connector. */
    public void connectSend(Link link, byte[] offerBytes) {
        check(link, true);
        String who = who(link);
        NetOffer offer = NetOffer.fromBytes(offerBytes);
        if (offer.stepBytes() != link.slotBytes()) {
            throw new JcclException(Result.INTERNAL_ERROR, who + ": the receiver offers slots of "
                    + offer.stepBytes() + " bytes, this side sends " + link.slotBytes() + " bytes (is it a GPU link "
                    + "of the same kernel layout?)");
        }
        NetPlugin.SendComm comm = setup.connect(offer, link.channel(), who);
        try {
            NetSlots slots = NetSlots.bare(link.slots(), link.slotBytes(), link.sizes());
            NetPlugin.MemHandle mh = setup.register(comm, slots.data(), link.ptrType(), who);
            BareTrailers trailers = offer.checksum() ? trailers(comm, slots, rank, link.channel(), who) : null;
            add(new NetSendProxy(link.words(), slots, plugin, comm, mh, Waker.NONE, true, health, who, false,
                    trailers));
        } catch (JcclException e) {
            setup.closeSend(comm);
            throw e;
        }
        Log.info(Subsys.INIT, rank, "GPU channel %02d : %d -> %d via %s (proxy)%s", link.channel(), rank,
                link.peer(), via(link), offer.checksum() ? ", CRC32C per slot" : "");
    }

    private void add(ProxyConnection c) {
        live.add(c);
        proxy.add(c);
    }

    /**
     * Suspend, first half: takes every link's connector off the proxy thread, so it no longer touches the links'
     * memory nor notices a peer's connection closing; the connections stay open until {@link #release()}.
     *
     * @throws JcclException {@link Result#INTERNAL_ERROR} when the proxy thread did not let go in time
     */
    public void quiesce(long timeoutNs) {
        if (!proxy.detach(live, timeoutNs)) {
            throw new JcclException(Result.INTERNAL_ERROR, "rank " + rank + ": the proxy thread did not let go of "
                    + "the GPU connectors across hosts in time");
        }
    }

    /**
     * Suspend, second half, once every rank quiesced: closes every link's connection and frees the trailers and
     * hello buffers; the links can then be made again ({@link #connect}) over new memory.
     */
    public void release() {
        for (ProxyConnection c : live) {
            c.close();
        }
        live.clear();
        made.clear();
        arena.release();
    }

    /** The trailers of a checksummed link from {@code sender}, in memory registered on {@code comm}. */
    private BareTrailers trailers(NetPlugin.Comm comm, NetSlots slots, int sender, int channel, String who) {
        MemorySegment memory = BareTrailers.allocate(arena.arena());
        NetPlugin.MemHandle mh = setup.register(comm, memory, who);
        return new BareTrailers(slots, memory, mh, BareTrailers.linkTag(sender, channel));
    }

    /** The receive side between listen and accept. */
    private final class Listening implements PendingRecv {
        private final Link link;
        private final NetListen listen;
        private final NetOffer offer;
        private boolean done;

        Listening(Link link, NetListen listen, NetOffer offer) {
            this.link = link;
            this.listen = listen;
            this.offer = offer;
        }

        @Override
        public byte[] offer() {
            return offer.toBytes();
        }

        @Override
        public void accept() {
            if (done) {
                throw new JcclException(Result.INVALID_USAGE, who(link) + ": accepted twice");
            }
            done = true;
            String who = who(link);
            NetPlugin.RecvComm comm = setup.accept(listen, offer.nonce(), link.peer(), link.channel(), who);
            try {
                NetSlots slots = NetSlots.bare(link.slots(), link.slotBytes(), null);
                NetPlugin.MemHandle mh = setup.register(comm, slots.data(), link.ptrType(), who);
                BareTrailers trailers = offer.checksum() ? trailers(comm, slots, link.peer(), link.channel(), who)
                        : null;
                add(new NetRecvProxy(link.words(), slots, plugin, comm, mh, Waker.NONE, true, health, who,
                        false, trailers).flushing(link.gdr()));
            } catch (JcclException e) {
                setup.closeRecv(comm);
                throw e;
            }
            Log.info(Subsys.INIT, rank, "GPU channel %02d : %d <- %d via %s (proxy)%s", link.channel(), rank,
                    link.peer(), via(link), offer.checksum() ? ", CRC32C per slot" : "");
        }

        /** Stops listening when the setup failed before the sender came. */
        void abandon() {
            if (!done) {
                done = true;
                setup.closeListen(listen);
            }
        }
    }

    /** How the init log names a link's transport: {@code NET/Socket}, or NCCL's {@code NET/IB/0/GDRDMA} with GDR. */
    private String via(Link l) {
        return l.gdr() ? name + "/" + dev + "/GDRDMA" : name;
    }

    /** How errors name a link: {@code rank 0 GPU channel 2 to rank 1}. */
    private String who(Link l) {
        return "rank " + rank + " GPU channel " + l.channel() + (l.isSend() ? " to rank " : " from rank ") + l.peer();
    }

    /** Checks a link's shape and memory, and that it is made once. */
    private void check(Link l, boolean send) {
        String who = who(l);
        if (l.isSend() != send) {
            throw new JcclException(Result.INTERNAL_ERROR, who + ": a " + (send ? "receive" : "send")
                    + " link given to " + (send ? "connectSend" : "listen"));
        }
        if (l.peer() < 0 || l.peer() >= nRanks || l.peer() == rank || l.channel() < 0 || l.channel() >= MAX_CHANNELS
                || l.slotBytes() <= 0 || l.own() == null || l.mirror() == null) {
            throw new JcclException(Result.INVALID_ARGUMENT, who + ": bad link (peer in [0, " + nRanks + ") other "
                    + "than this rank, channel in [0, " + MAX_CHANNELS + "), slots of at least 1 byte, both blocks)");
        }
        Block data = send ? l.mirror() : l.own();
        long need = (long) ConnFifo.NSTEPS * l.slotBytes();
        if (data.slots() == null || data.slots().byteSize() < need) {
            throw new JcclException(Result.INVALID_ARGUMENT, who + ": the " + (send ? "mirror" : "own")
                    + " block's slots hold " + (data.slots() == null ? 0 : data.slots().byteSize()) + " bytes, "
                    + ConnFifo.NSTEPS + " slots of " + l.slotBytes() + " need " + need);
        }
        word(who, send ? "mirror tail" : "own tail", send ? l.mirror().tail() : l.own().tail());
        if (send && (l.mirror().sizes() == null || l.mirror().sizes().byteSize() < 8L * ConnFifo.NSTEPS)) {
            throw new JcclException(Result.INVALID_ARGUMENT, who + ": the mirror's sizes must be " + ConnFifo.NSTEPS
                    + " words of native memory" + (l.mirror().sizes() == null ? " (none given)" : ""));
        }
        if (send) {
            word(who, "mirror sizes", l.mirror().sizes());
        }
        word(who, send ? "own head" : "mirror head", send ? l.own().head() : l.mirror().head());
        if (!made.add(key(l))) {
            throw new JcclException(Result.INVALID_USAGE, who + ": this link was already made (one connector per "
                    + "peer, channel and direction)");
        }
    }

    /** A link's key in {@link #made}: peer, channel and direction. */
    private static long key(Link l) {
        return (((long) l.peer() * MAX_CHANNELS + l.channel()) << 1) | (l.isSend() ? 1 : 0);
    }

    private static void word(String who, String what, MemorySegment w) {
        if (w == null || w.byteSize() < 8 || !w.isNative() || (w.address() & 7) != 0) {
            throw new JcclException(Result.INVALID_ARGUMENT, who + ": the " + what + " word must be 8 aligned bytes "
                    + "of native memory" + (w == null ? " (none given)" : ", got " + w));
        }
    }
}
