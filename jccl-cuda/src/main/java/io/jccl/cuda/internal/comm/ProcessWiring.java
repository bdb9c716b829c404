package io.jccl.cuda.internal.comm;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuOptions;
import io.jccl.internal.comm.GpuAccess;
import io.jccl.internal.base.MemoryLedger;
import io.jccl.internal.comm.HostCommunicator;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.topology.channels.ChainTrees;
import io.jccl.internal.transport.PeerExchange;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The GPU side of a one-process-per-GPU communicator: this rank's collective memory, the {@link SharedControl} the
 * processes share (abort area, call ledger, stop note), and the peers' memories mapped through CUDA IPC.
 * {@link #connect} allocates and zeroes this rank's memory, exchanges {@link RankInfo}s with the host communicator's
 * allGather, checks that every rank agrees, sets up the shared control memory, opens every peer's handle on this GPU,
 * and ends with a host barrier, so no kernel can touch a peer's memory before it is mapped everywhere. Owns the host
 * communicator from then on. When the ranks span hosts ({@code PeerInfo.hostHash}, which honours NCCL_HOSTID), the
 * ranks of other hosts are reached through the network proxy ({@link NetAreas}) while those of this host keep CUDA IPC
 * or peer access (NCCL's P2P transport beside NET), and only the ring and point-to-point kernels may run.
 *
 * <p>Thread: the communicator's owner; the control memory from any thread. Mirrors NCCL's p2p transport setup
 * (p2pSendSetup/p2pRecvSetup with legacy CUDA IPC) driven by bootstrapAllGather, and its net transport across hosts.
 */
public final class ProcessWiring implements RankMemory {
    /** Pinned host memory per rank that an automatic {@link #netSlotBytes slot size} stays within. */
    static final long NET_PINNED_BUDGET_BYTES = 128L << 20;
    /** The smallest and largest automatic slot. */
    static final long NET_SLOT_MIN_BYTES = 128L << 10;
    static final long NET_SLOT_MAX_BYTES = 2048L << 10;

    /**
     * Channels of every connection when the ranks span hosts (each is a send and a receive connector per peer):
     * {@code jccl.cuda.netChannels}, 2 by default. Across a slow or time-shared link the FIFOs (8 slots each way per
     * channel) bound the bytes in flight, so more channels carry more per round trip, at n·(n-1)·8 slots of pinned
     * memory per channel and rank.
     */
    public static int netChannels() {
        return io.jccl.internal.param.InternalProperties.CUDA_NET_CHANNELS.get();
    }

    /**
     * The FIFO slot of {@code nRanks} ranks on {@code channels} channels when they span hosts:
     * {@code jccl.cuda.netSlotKiB}, or when that is 0 (the default) the largest power of two from 128 KiB to 2 MiB
     * whose slots fit {@link #NET_PINNED_BUDGET_BYTES} per rank (this rank's area and a mirror of each peer's:
     * n·(n-1)·channels·8 slots). A step sends only the bytes its kernel wrote, so large slots cost small calls
     * nothing on the wire, and they carry a large call in fewer proxy steps (on a socket link, 2 MiB slots carry
     * twice what 512 KiB slots do); the same on every rank, since every input is.
     */
    public static long netSlotBytes(int nRanks, int channels) {
        int kib = io.jccl.internal.param.InternalProperties.CUDA_NET_SLOT_KIB.get();
        if (kib > 0) {
            return (long) kib << 10;
        }
        long slots = (long) nRanks * Math.max(1, nRanks - 1) * channels * AreaLayout.FIFO_STEPS;
        long fit = Long.highestOneBit(Math.max(1, NET_PINNED_BUDGET_BYTES / slots));
        return Math.clamp(fit, NET_SLOT_MIN_BYTES, NET_SLOT_MAX_BYTES);
    }
    private final Communicator host;
    private final CudaDevice device;
    private final AreaLayout layout;
    private final MemoryLedger ledger;
    /** Whether each rank runs in this process (its area is reached by address). */
    private final boolean[] inThisProcess;
    private final int remoteMask;
    /** This rank's area and the kernels' view of every rank's; replaced by {@link #restore}, null while released. */
    private volatile RankArea area;
    private volatile PeerAreas peers;
    private final SharedControl control;
    private final int residentBlocks;
    private final boolean sharesGpus;
    private final boolean wholeLineLinks;
    private final int[][] rings;
    /** This rank's links in the tree allReduce's two trees ({@link #treeLinks}). */
    private final int[][] trees;
    /** The ranks of this process when there are several (released together); else null. */
    private final LocalRanks local;
    private final boolean allHere;
    /** This rank's connection areas for the ranks of other hosts, else null; replaced by {@link #restore}. */
    private volatile NetAreas net;
    private final long timeoutNs;
    private final int hosts;
    /** What the ranks agreed on for the cost model across hosts, else null. */
    private final NetShape netShape;
    /** How this rank reaches each peer when the ranks span hosts ({@link #describePeers}), else null. */
    private final String connections;

    private ProcessWiring(Communicator host, CudaDevice device, AreaLayout layout, MemoryLedger ledger,
                          boolean[] inThisProcess, int remoteMask, RankArea area, PeerAreas peers,
                          SharedControl control, int residentBlocks, boolean sharesGpus, boolean wholeLineLinks,
                          int[][] rings,
                          int[][] trees, LocalRanks local, boolean allHere, NetAreas net, int hosts, String connections,
                          NetShape netShape, long timeoutMs) {
        this.netShape = netShape;
        this.timeoutNs = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        this.host = host;
        this.device = device;
        this.layout = layout;
        this.ledger = ledger;
        this.inThisProcess = inThisProcess;
        this.remoteMask = remoteMask;
        this.area = area;
        this.peers = peers;
        this.control = control;
        this.residentBlocks = residentBlocks;
        this.sharesGpus = sharesGpus;
        this.wholeLineLinks = wholeLineLinks;
        this.rings = rings;
        this.trees = trees;
        this.local = local;
        this.allHere = allHere;
        this.net = net;
        this.hosts = hosts;
        this.connections = connections;
    }

    /** The hosts {@code host}'s ranks run on (1 when it tells none: not a {@link HostCommunicator}). */
    public static int hostCount(Communicator host) {
        GpuAccess access = access(host);
        if (access == null) {
            return 1;
        }
        return (int) java.util.Arrays.stream(RankAgreement.hostHashes(access, host.size())).distinct().count();
    }

    /**
     * {@code options} for a communicator of {@code nRanks} across hosts: at most {@link #netChannels()} channels of
     * {@link #netSlotBytes} slots (the same on every rank, so the layouts and plans agree).
     */
    public static GpuOptions acrossHosts(GpuOptions options, int nRanks) {
        int channels = Math.min(options.ringChannels(), netChannels());
        return options.withRing(channels, netSlotBytes(nRanks, channels), options.ringChunkSteps());
    }

    private static GpuAccess access(Communicator host) {
        return host instanceof HostCommunicator h ? h.gpuAccess() : null;
    }

    /**
     * Sets up this rank's side; collective over {@code host} (every rank calls it). The memory it allocates or maps
     * is counted on {@code ledger}.
     */
    public static ProcessWiring connect(Communicator host, CudaDevice device, AreaLayout layout, long timeoutMs,
                                        MemoryLedger ledger) {
        int me = host.rank();
        int n = host.size();
        GpuAccess access = access(host);
        int hosts = hostCount(host);
        boolean acrossHosts = hosts > 1;
        int remoteMask = acrossHosts ? RankAgreement.remoteMask(RankAgreement.hostHashes(access, n), me) : 0;
        boolean localPeers = Integer.bitCount(remoteMask) < n - 1;
        RankArea area = RankArea.allocate(device, layout, ledger);
        SharedControl control = null;
        NetAreas net = null;
        List<DeviceBuffer> mappings = new ArrayList<>();
        try {
            byte[] handle = localPeers ? area.ipcHandle() : new byte[64];
            RankInfo mine = new RankInfo(access != null ? access.hostHash(me) : 0, ProcessHandle.current().pid(),
                    device.pciBusId(),
                    device.multiprocessorCount(), layout.fingerprint(), area.sizeBytes(), area.base(), handle);
            List<RankInfo> all = new ArrayList<>(n);
            try (Arena a = Arena.ofShared()) {
                MemorySegment send = a.allocate(RankInfo.BYTES);
                MemorySegment recv = a.allocate((long) RankInfo.BYTES * n);
                mine.encode(send);
                host.allGather(send, recv, RankInfo.BYTES, DataType.UINT8);
                for (int r = 0; r < n; r++) {
                    all.add(RankInfo.decode(recv.asSlice((long) r * RankInfo.BYTES, RankInfo.BYTES)));
                }
            }
            RankInfo.checkConsistent(all, me);
            control = SharedControl.forProcesses(host, device, timeoutMs, acrossHosts ? "the ranks run on " + hosts
                    + " hosts" : null);
            int resident = Integer.MAX_VALUE;
            boolean shared = false;
            boolean[] inThisProcess = new boolean[n];
            for (int r = 0; r < n; r++) {
                RankInfo info = all.get(r);
                long sharing = all.stream().filter(info::sameGpu).count();
                resident = (int) Math.min(resident, Math.max(1, info.sms() / sharing));
                shared |= sharing > 1;
                inThisProcess[r] = info.sameProcess(mine);
                if (r != me && inThisProcess[r] && (remoteMask >>> r & 1) == 0) {
                    reach(device, info.busId(), r);   // a rank of this process (a split of initAll's ranks)
                }
            }
            long[] bases = mapPeers(device, me, remoteMask, inThisProcess, all.stream().map(RankInfo::areaBase)
                    .mapToLong(Long::longValue).toArray(), all.stream().map(RankInfo::ipcHandle).toList(),
                    all.stream().map(RankInfo::areaBytes).mapToLong(Long::longValue).toArray(), mappings, ledger);
            if (acrossHosts) {
                LedgerLink.start(me, n, control, access, GpuStops.nameOf(me, n, device));
                net = NetAreas.allocate(device, layout, me, remoteMask, access.net(), ledger);
                net.connect(access, device, layout, me);
            }
            int[][] nvlinks = RankAgreement.agreeOnLinks(host, device, all);
            int[][] rings = RankAgreement.agreeOnRings(host, acrossHosts ? RankAgreement.byHost(all, me)
                    : GpuRings.searchOrInOrder(GpuRings.onePerRank(all.stream().map(RankInfo::busId).toList()),
                    device.computeCapability(), nvlinks, TopoEnv.system(), me));
            long[] hostOf = all.stream().mapToLong(RankInfo::hostHash).toArray();
            int[][] trees = treeLinks(rings[0], hostOf, me);
            boolean[][] linked = new boolean[n][n];
            for (int r = 0; r < n; r++) {
                for (int q = 0; q < n; q++) {
                    linked[r][q] = nvlinks[r][q] > 0;
                }
            }
            int here = (int) all.stream().filter(mine::sameProcess).count();
            String connections = acrossHosts
                    ? RankAgreement.describePeers(all, me, remoteMask, access.net().name()) : null;
            NetShape shape = acrossHosts ? RankAgreement.agreeOnNet(host, all, device.computeCapabilityMajor() * 10
                    + device.computeCapabilityMinor(), net.speedMbps()) : null;
            return new ProcessWiring(host, device, layout, ledger, inThisProcess, remoteMask, area,
                    new PeerAreas(bases, net != null ? net.kernelView() : null, mappings, ledger), control, resident,
                    shared, !acrossHosts && Clique.allLinked(linked), rings, trees,
                    here > 1 ? LocalRanks.of(host, here) : null, n > 1 && here == n, net, hosts, connections, shape,
                    timeoutMs);
        } catch (RuntimeException e) {
            abandon(host, net, mappings, ledger, area);
            if (control != null) {
                control.close();
            }
            throw e;
        }
    }

    /**
     * Every rank's area base as rank {@code me} reaches it: its own, 0 for a rank of another host (reached through
     * the network proxy, {@link NetAreas}), the address itself for a rank of this process, else a CUDA IPC mapping of
     * {@code handles[r]}, added to {@code mappings} and counted on {@code ledger}.
     */
    private static long[] mapPeers(CudaDevice device, int me, int remoteMask, boolean[] inThisProcess, long[] areaBases,
                                   List<byte[]> handles, long[] areaBytes, List<DeviceBuffer> mappings,
                                   MemoryLedger ledger) {
        long[] bases = new long[areaBases.length];
        for (int r = 0; r < bases.length; r++) {
            if ((remoteMask >>> r & 1) != 0) {
                bases[r] = 0;
            } else if (r == me || inThisProcess[r]) {
                bases[r] = areaBases[r];
            } else {
                DeviceBuffer m = DeviceBuffer.openIpcHandle(device, handles.get(r), areaBytes[r]);
                mappings.add(m);
                ledger.add(MemoryLedger.Kind.PEER_MAPPED, m.sizeBytes());
                bases[r] = m.address();
            }
        }
        return bases;
    }

    @Override
    public String suspendRefusal() {
        return null;
    }

    /**
     * Unmaps the peers' areas and takes the connectors to other hosts off the proxy thread, waits for every rank to
     * have done so, then closes those connections, frees their pinned areas and this rank's own area.
     */
    @Override
    public void release(PeerExchange exchange) {
        PeerAreas p = peers;
        if (p != null) {
            p.close();
        }
        NetAreas n = net;
        if (n != null) {
            n.quiesce(timeoutNs);
        }
        exchange.barrier();
        if (n != null) {
            net = null;
            n.release();
        }
        RankArea a = area;
        area = null;
        if (a != null) {
            a.close();
        }
    }

    /**
     * A new area, its address and IPC handle exchanged (a host bootstrap allGather), the peers' mapped again; across
     * hosts new pinned areas and their connectors made again (collective with the peers of other hosts).
     */
    @Override
    public PeerAreas restore(PeerExchange exchange) {
        int me = host.rank();
        RankArea a = RankArea.allocate(device, layout, ledger);
        List<DeviceBuffer> mappings = new ArrayList<>();
        NetAreas n = null;
        try {
            if (remoteMask != 0) {
                GpuAccess access = access(host);
                n = NetAreas.allocate(device, layout, me, remoteMask, access.net(), ledger);
                n.connect(access, device, layout, me);
            }
            byte[] handle = Integer.bitCount(remoteMask) < host.size() - 1 ? a.ipcHandle() : new byte[64];
            java.nio.ByteBuffer mine = java.nio.ByteBuffer.allocate(16 + handle.length).putLong(a.base())
                    .putLong(a.sizeBytes()).put(handle);
            byte[][] all = exchange.allGather(mine.array());
            int ranks = all.length;
            long[] areaBases = new long[ranks];
            long[] areaBytes = new long[ranks];
            List<byte[]> handles = new ArrayList<>(ranks);
            for (int r = 0; r < ranks; r++) {
                java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(all[r]);
                areaBases[r] = b.getLong();
                areaBytes[r] = b.getLong();
                byte[] h = new byte[b.remaining()];
                b.get(h);
                handles.add(h);
            }
            long[] bases = mapPeers(device, me, remoteMask, inThisProcess, areaBases, handles, areaBytes, mappings,
                    ledger);
            PeerAreas p = new PeerAreas(bases, n != null ? n.kernelView() : null, mappings, ledger);
            area = a;
            net = n;
            peers = p;
            exchange.barrier();   // every rank mapped every area before any kernel may touch one
            return p;
        } catch (RuntimeException e) {
            abandon(host, n, mappings, ledger, a);
            throw e;
        }
    }

    /**
     * Undoes a setup that failed: the connectors to other hosts (the proxy may hold their memory: the host
     * communicator is aborted first), the IPC mappings made so far, this rank's area.
     */
    private static void abandon(Communicator host, NetAreas net, List<DeviceBuffer> mappings, MemoryLedger ledger,
                                RankArea area) {
        if (net != null) {
            host.abort();
            closeQuietly(net::close);
        }
        for (DeviceBuffer m : mappings) {
            closeQuietly(m::close);
            ledger.remove(MemoryLedger.Kind.PEER_MAPPED, m.sizeBytes());
        }
        area.close();
    }

    /**
     * Lets {@code device} read and write the memory of rank {@code r} of this process, on the GPU at {@code busId}
     * (peer access; nothing to do on the same GPU).
     *
     * @throws JcclException {@link io.jccl.Result#INVALID_USAGE} when the two GPUs cannot be peers
     */
    private static void reach(CudaDevice device, String busId, int r) {
        for (CudaDevice d : CudaDevice.all()) {
            if (d.pciBusId().equalsIgnoreCase(busId)) {
                if (d != device) {
                    if (!device.canAccessPeer(d)) {
                        throw new JcclException(io.jccl.Result.INVALID_USAGE, "GPU " + device.ordinal()
                                + " cannot access the memory of GPU " + d.ordinal() + " (rank " + r + ", same"
                                + " process): no NVLink or PCIe peer-to-peer path");
                    }
                    device.enablePeerAccess(d);
                }
                return;
            }
        }
        throw new JcclException(io.jccl.Result.INTERNAL_ERROR, "rank " + r + " of this process uses the GPU at "
                + busId + ", which this process does not see");
    }

    /** What the ranks agreed on for NCCL's cost model across hosts ({@link NetShape}), or null on one host. */
    public NetShape netShape() {
        return netShape;
    }

    /** The hosts the ranks run on; above 1 the ranks of other hosts are reached through the network. */
    public int hosts() {
        return hosts;
    }

    /**
     * How this rank reaches each peer when the ranks span hosts ("rank 2 via P2P/IPC, ranks 1, 3 via NET/Socket
     * (proxy)"), or null on one host.
     */
    public String connections() {
        return connections;
    }

    /** The transport GPU traffic crosses hosts over ({@code NET/Socket}), or null on one host. */
    public String transport() {
        return net != null ? net.transport() : null;
    }

    /**
     * Rank {@code me}'s links in the tree allReduce's tree 0 and tree 1 ({@link ChainTrees}: chains in ring order
     * inside each host, the double binary tree over the hosts), each {parent, child, child, child} with -1 for none;
     * logged at INFO in NCCL's form ({@code Trees [0] 2/-1/1->0->-1 [1] ...}: children->rank->parent).
     *
     * @param order  ring 0, each host's ranks together
     * @param hostOf each rank's host hash (all equal on one host)
     */
    public static int[][] treeLinks(int[] order, long[] hostOf, int me) {
        int[] host = new int[hostOf.length];
        for (int r = 0; r < host.length; r++) {
            int first = 0;
            while (hostOf[first] != hostOf[r]) {
                first++;
            }
            host[r] = first;   // the lowest rank on r's host names it
        }
        int[][] trees = {ChainTrees.links(order, host, me, 0), ChainTrees.links(order, host, me, 1)};
        if (Log.enabled(Log.Level.INFO, Subsys.GRAPH) && order.length > 1) {
            StringBuilder b = new StringBuilder("Trees");
            for (int t = 0; t < 2; t++) {
                b.append(" [").append(t).append("] ").append(trees[t][1]).append('/').append(trees[t][2]).append('/')
                        .append(trees[t][3]).append("->").append(me).append("->").append(trees[t][0]);
            }
            Log.info(Subsys.GRAPH, me, "%s", b);
        }
        return trees;
    }

    /** This rank's links in the tree allReduce's two trees ({@link #treeLinks}). */
    public int[][] trees() {
        return trees;
    }

    /** The ring orders the ring kernels follow, the same on every rank ({@link GpuRings}). */
    public int[][] rings() {
        return rings;
    }

    /**
     * Whether every rank is in this process (a split of initAll's ranks): then every rank's buffers are addressable
     * from every GPU (peer access is enabled between them), and the pull kernels may read the peers' buffers, as in
     * an initAll clique.
     */
    public boolean allInThisProcess() {
        return allHere;
    }

    /** Whether packed LL and LL128 may run: every pair of the communicator's GPUs is linked by NVLink. */
    public boolean wholeLineLinks() {
        return wholeLineLinks;
    }

    public PeerAreas peers() {
        return peers;
    }

    public long abortPointer() {
        return control.abortArea().devicePointer();
    }

    /** The smallest multiprocessor count of the communicator's GPUs. */
    public int residentBlocks() {
        return residentBlocks;
    }

    /** Whether some GPU runs more than one rank (tests with {@code jccl.cuda.shareDevices}). */
    public boolean sharesGpus() {
        return sharesGpus;
    }

    /** The abort area, call ledger and stop note the processes share (or this process's own, when they could not). */
    public SharedControl control() {
        return control;
    }

    /**
     * Releases everything once every rank got here (a host barrier, skipped once the communicator is stopped: then
     * peers may be gone), so no peer kernel still writes into this rank's memory when it is freed. When every rank is
     * in this process, or several are, the last of them to close releases them all instead ({@link LocalRanks}), so one
     * thread can close them in turn.
     */
    public void close(boolean stopped) {
        if (local != null) {
            RuntimeException e = local.release(() -> {
                closeQuietly(this::closeAreas);
            }, () -> {
                // the host communicators are closed: their bootstrap readers (the ledger link's arrivals) and proxy
                // threads touch neither any more
                closeQuietly(control::close);
                if (net != null) {
                    closeQuietly(net::close);
                }
            }, host, stopped);
            if (e != null) {
                throw e;
            }
            return;
        }
        if (!stopped) {
            LocalRanks.barriers(List.of(host));
        }
        closeQuietly(this::closeAreas);
        try {
            // now, also inside a group (perf closes in one): a close deferred to the group's end would leave the
            // proxy thread moving the FIFOs freed below
            if (host instanceof HostCommunicator h) {
                h.closeNow();
            } else {
                host.close();
            }
        } finally {   // after the bootstrap readers (the ledger link's arrivals) and the proxy thread stopped
            closeQuietly(control::close);
            if (net != null) {
                closeQuietly(net::close);
            }
        }
    }

    /** Unmaps the peers' areas and frees this rank's (either may be gone already: released by a suspend). */
    private void closeAreas() {
        PeerAreas p = peers;
        if (p != null) {
            closeQuietly(p::close);
        }
        RankArea a = area;
        if (a != null) {
            a.close();
        }
    }

    private static void closeQuietly(Runnable r) {
        try {
            r.run();
        } catch (JcclException e) {
            // best effort while closing: the communicator is going away either way
        }
    }
}
