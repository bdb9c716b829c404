package io.jccl.cuda.internal.comm;

import io.jccl.JcclException;
import io.jccl.cuda.CudaDevice;
import io.jccl.internal.base.MemoryLedger;
import io.jccl.internal.comm.GpuAccess;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.transport.net.GpuNetConnections;
import io.jccl.internal.transport.net.GpuNetConnections.Block;
import io.jccl.internal.transport.net.GpuNetConnections.Link;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The connection areas of a GPU communicator whose ranks span hosts, for the peers on other hosts (the ranks of this
 * host keep their device areas, mapped through CUDA IPC or peer access). The kernels keep their Simple protocol
 * unchanged; only the addresses differ: this rank's side of those connections is a second connection area
 * ({@link AreaLayout}'s {@code [nRanks-1][channels]} ConnCtl lines and FIFOs) in pinned, device-mapped host memory,
 * of which only the entries of remote peers are used ({@code KernelArgs.netConnOwn}), and each remote peer's entry of
 * the kernels' connection table points at a <em>mirror</em> of that peer's area in pinned memory of this host, of
 * which only the peer's entry for this rank is used. For every remote peer and channel this rank makes a send and a
 * receive connector ({@link GpuNetConnections}). With GPUDirect RDMA ({@link NetGdr}) this rank's own area (the
 * receive FIFOs) is device memory registered with the plugin as CUDA memory, flushed before each tail advances, and
 * with GDR reads the mirrors (the send FIFOs) are device memory too:
 * <ul>
 *   <li>send: the kernel writes its steps into the mirror's FIFO and tail; the proxy sends them to the peer's own
 *   FIFO and writes the credits into this rank's own head once they left;</li>
 *   <li>receive: the proxy receives into this rank's own FIFO and advances its own tail; the kernel returns credits
 *   into the mirror's head, which the proxy reads to post receives.</li>
 * </ul>
 * The memory stays allocated until the host communicator is closed (its proxy thread reads and writes it until
 * then): {@link #close} must come after that.
 *
 * <p>Thread: the communicator's owner (setup, close); the proxy thread reads and writes the blocks. Mirrors NCCL's
 * net transport (netSendSetup/netRecvSetup: host-memory buffers, or device memory when GPUDirect RDMA is on).
 */
final class NetAreas implements AutoCloseable {
    private final NetMemory own;
    /** Per rank: the mirror of its connection area (null for this rank and the ranks of this host). */
    private final NetMemory[] mirrors;
    private final NetGdr gdr;
    /** Bit r set: rank r runs on another host. */
    private final int remoteMask;
    private final String transport;
    private final MemoryLedger ledger;
    private boolean closed;
    /** The connectors over this memory once {@link #connect} ran (their proxy thread must end before a free). */
    private volatile GpuNetConnections connections;

    private NetAreas(NetMemory own, NetMemory[] mirrors, int remoteMask, String transport, NetGdr gdr,
                     MemoryLedger ledger) {
        this.gdr = gdr;
        this.ledger = ledger;
        this.own = own;
        this.mirrors = mirrors;
        this.remoteMask = remoteMask;
        this.transport = transport;
    }

    /**
     * Allocates this rank's area and the mirrors of the ranks of {@code remoteMask} (bit r: rank r runs on another
     * host), zero-filled as the ConnCtl lines must start, for {@code layout}; counted on {@code ledger}. Device
     * memory or pinned host memory as {@link NetGdr} decides for {@code net}'s plugin and this GPU.
     */
    public static NetAreas allocate(CudaDevice device, AreaLayout layout, int me, int remoteMask,
                                    GpuNetConnections net, MemoryLedger ledger) {
        String transport = net.name();
        NetGdr gdr = NetGdr.decide(transport, net.properties(), device.pciBusId(), device.computeCapability(),
                () -> NetMemory.deviceMemoryHostAddressable(device));
        int n = layout.nRanks();
        if (layout.channels() > GpuNetConnections.MAX_CHANNELS || layout.slotBytes() > Integer.MAX_VALUE) {
            throw new JcclException(io.jccl.Result.INVALID_USAGE, "rank " + me + ": " + layout.channels() + " GPU"
                    + " channels of " + layout.slotBytes() + "-byte slots cannot cross hosts (at most "
                    + GpuNetConnections.MAX_CHANNELS + " channels, slots under 2 GiB)");
        }
        long bytes = layout.connCtlBytes() + layout.fifoBytes();
        NetMemory[] mirrors = new NetMemory[n];
        NetMemory mine = NetMemory.allocate(device, bytes, gdr.recv(), ledger);
        NetAreas areas = new NetAreas(mine, mirrors, remoteMask, transport, gdr, ledger);
        try {
            for (int p = 0; p < n; p++) {
                if (p != me && remote(remoteMask, p)) {
                    mirrors[p] = NetMemory.allocate(device, bytes, gdr.send(), ledger);
                }
            }
        } catch (RuntimeException e) {
            areas.close();
            throw e;
        }
        return areas;
    }

    /**
     * Connects every peer on another host on every channel, both directions, over {@code access}'s network
     * connectors; collective over the communicator's ranks (each makes the opposite links). On failure the proxy may
     * hold some of the memory: the caller aborts the host communicator before {@link #close}.
     */
    public void connect(GpuAccess access, CudaDevice device, AreaLayout layout, int me) {
        int n = layout.nRanks();
        int channels = layout.channels();
        int slotBytes = (int) layout.slotBytes();
        List<Link> links = new ArrayList<>(2 * (n - 1) * channels);
        for (int p = 0; p < n; p++) {
            if (p == me || !remote(remoteMask, p)) {
                continue;
            }
            for (int c = 0; c < channels; c++) {
                Block ownBlock = block(own.segment(), layout, peerIndex(me, p), c);
                Block mirror = block(mirrors[p].segment(), layout, peerIndex(p, me), c);
                links.add(new Link(p, c, false, slotBytes, ownBlock, mirror, gdr.recv()));
                links.add(new Link(p, c, true, slotBytes, ownBlock, mirror, gdr.send()));
            }
        }
        connections = access.net();
        if (Log.enabled(Log.Level.INFO, Subsys.INIT)) {
            Log.info(Subsys.INIT, me, "%s", gdr.line(device.pciBusId(), transport, connections.device()));
        }
        connections.connect(links);
        if (Log.enabled(Log.Level.INFO, Subsys.INIT)) {
            long each = layout.connCtlBytes() + layout.fifoBytes();
            int peers = Integer.bitCount(remoteMask);
            Log.info(Subsys.INIT, me, "%d GPU channels to each of %d peers on other hosts through the proxy, %d KiB "
                    + "slots (jccl.cuda.netSlotKiB): receive FIFOs in %s, send FIFOs in %s, %d KiB", channels, peers,
                    slotBytes >> 10, gdr.recv() ? "device memory" : "pinned host memory",
                    gdr.send() ? "device memory" : "pinned host memory", each * (1 + peers) >> 10);
        }
    }

    private static boolean remote(int remoteMask, int r) {
        return (remoteMask >>> r & 1) != 0;
    }

    /** kernels' peerIndex (jccl_prims.cuh): the entry of {@code peer} in {@code owner}'s area. */
    static int peerIndex(int owner, int peer) {
        return peer - (peer > owner ? 1 : 0);
    }

    /**
     * The ConnCtl line (tail at +0, the 8 step sizes at +8, head at +128) and FIFO of entry {@code index}, channel
     * {@code c}.
     */
    private static Block block(MemorySegment area, AreaLayout l, int index, int c) {
        long entry = (long) index * l.channels() + c;
        MemorySegment ctl = area.asSlice(entry * AreaLayout.CONN_CTL_BYTES, AreaLayout.CONN_CTL_BYTES);
        long fifoBytes = AreaLayout.FIFO_STEPS * l.slotBytes();
        MemorySegment fifo = area.asSlice(l.connCtlBytes() + entry * fifoBytes, fifoBytes);
        return new Block(fifo, ctl.asSlice(0, 8), ctl.asSlice(8, 8L * AreaLayout.FIFO_STEPS), ctl.asSlice(128, 8));
    }

    /** The kernels' view of these areas: this rank's side, and the mirror of each remote peer's. */
    public PeerAreas.Net kernelView() {
        long[] m = new long[mirrors.length];
        for (int r = 0; r < m.length; r++) {
            m[r] = mirrors[r] != null ? mirrors[r].devicePointer() : 0;
        }
        return new PeerAreas.Net(remoteMask, own.devicePointer(), m);
    }

    /** The network device's link speed in Mb/s (after {@link #connect}). */
    int speedMbps() {
        GpuNetConnections c = connections;
        return c != null ? c.speedMbps() : 10_000;
    }

    /** The transport's name ({@code NET/Socket}). */
    public String transport() {
        return transport;
    }

    /**
     * Frees the memory once the host communicator is closed or aborted and its proxy thread has ended; while
     * that thread still runs (it did not stop in time) the memory stays allocated, with a warning, since the proxy
     * would read and write it after its release.
     */
    @Override
    public synchronized void close() {
        GpuNetConnections c = connections;
        if (c != null && !c.proxyEnded()) {
            Log.warn(-1, "the proxy thread of the GPU connectors across hosts (%s) still runs: their %d KiB of "
                    + "memory stay allocated", transport,
                    own.sizeBytes() * (1 + Integer.bitCount(remoteMask)) >> 10);
            return;
        }
        free();
    }

    /**
     * Suspend, first half: the proxy thread lets go of this rank's connectors (the connections stay open, so no peer
     * takes their closing for a failure before it let go too).
     */
    public void quiesce(long timeoutNs) {
        GpuNetConnections c = connections;
        if (c != null) {
            c.quiesce(timeoutNs);
        }
    }

    /** Suspend, second half, once every rank quiesced: closes the connections and frees the memory. */
    public synchronized void release() {
        GpuNetConnections c = connections;
        if (c != null) {
            c.release();
        }
        free();
    }

    private void free() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException first = null;
        for (NetMemory b : mirrors) {
            if (b != null) {
                try {
                    b.free(ledger);
                } catch (RuntimeException e) {
                    first = first == null ? e : first;
                }
            }
        }
        try {
            own.free(ledger);
        } catch (RuntimeException e) {
            first = first == null ? e : first;
        }
        if (first != null) {
            throw first;
        }
    }
}
