package io.jccl.internal.comm;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.algorithm.Ring;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.IdlePolicy;
import io.jccl.internal.bootstrap.Bootstrap;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.ProcessResources;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.enqueue.ShotLimits;
import io.jccl.internal.param.Params;
import io.jccl.internal.proxy.ProxyThread;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.transport.ConnFifo;
import io.jccl.internal.transport.Connections;
import io.jccl.internal.transport.Transport;
import io.jccl.internal.transport.net.GpuNetConnections;
import io.jccl.internal.transport.net.NetChecksum;
import io.jccl.internal.transport.net.NetPlugins;
import io.jccl.internal.transport.net.NetTransport;
import io.jccl.internal.transport.shm.ShmPeerArea;
import io.jccl.internal.transport.shm.ShmTransport;
import io.jccl.internal.tuning.HostTuning;
import io.jccl.net.NetPlugin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Creates communicators (NCCL's {@code ncclCommInitRank} path): bootstrap, exchange of peer infos, agreement on
 * channels and slot sizes, proxy and transports, ring connections, channel workers.
 *
 * <p>Owned by: the calling thread (init blocks it until every rank joined). Mirrors: init.cc ncclCommInitRankFunc /
 * initTransportsRank.
 */
public final class CommFactory {
    private CommFactory() {
    }

    public static Communicator init(UniqueId id, int nRanks, int rank, Config config) {
        if (id == null) {
            throw new JcclException(Result.INVALID_ARGUMENT, "UniqueId is null");
        }
        return init(List.of(id), nRanks, rank, config);
    }

    /**
     * A rank of a communicator whose bootstrap has one root per id (NCCL's ncclCommInitRankScalable): see
     * {@link ScalableIds} for the checks and for NCCL_COMM_ID, which forces one root.
     */
    public static Communicator initScalable(List<UniqueId> ids, int nRanks, int rank, Config config) {
        return init(ScalableIds.roots(ids, nRanks, rank), nRanks, rank, config);
    }

    private static Communicator init(List<UniqueId> ids, int nRanks, int rank, Config config) {
        UniqueId id = ids.getFirst();
        if (nRanks < 1 || rank < 0 || rank >= nRanks) {
            throw new JcclException(Result.INVALID_ARGUMENT, "rank " + rank + " is not in [0, " + nRanks + ")");
        }
        Config cfg = config == null ? Config.defaults() : config;
        long timeoutNs = cfg.timeout() != null ? cfg.timeout().toNanos()
                : TimeUnit.MILLISECONDS.toNanos(Params.TIMEOUT_MS.get());
        String commId = HexFormat.of().toHexDigits(PeerInfo.hash(Long.toHexString(id.magic()) + "/"
                + id.rootAddress()));
        long t0 = System.nanoTime();
        InitTrace trace = InitTrace.begin(commId, rank, nRanks);
        Bootstrap bootstrap = Bootstrap.init(ids, rank, nRanks, timeoutNs);
        trace.phase(InitPhase.BOOTSTRAP);
        CommHealth health = new CommHealth(nRanks);
        bootstrap.attach(health);
        CommResilience resilience = CommResilience.watch(commId, cfg, timeoutNs, bootstrap, health);
        CommMemory memory = null;
        ProxyThread proxy = null;
        ShmTransport shm = null;
        try {
            int minCh = cfg.minChannels() > 0 ? cfg.minChannels() : Params.MIN_NCHANNELS.get();
            int maxCh = cfg.maxChannels() > 0 ? cfg.maxChannels() : Params.MAX_NCHANNELS.get();
            PeerInfo me = PeerInfo.local(rank, Jccl.VERSION, minCh, maxCh,
                    Params.BUFFSIZE.isSet() ? stepBytes(Params.BUFFSIZE.get()) : CommShape.DEFAULT_STEP,
                    stepBytes(Params.P2P_BUFFSIZE.get()));
            byte[][] all = bootstrap.allGather(me.encode());
            PeerInfo[] peers = new PeerInfo[nRanks];
            for (int r = 0; r < nRanks; r++) {
                peers[r] = PeerInfo.decode(all[r]);
            }
            CommShape shape = CommShape.decide(peers, rank);
            trace.phase(InitPhase.PEER_INFO);
            memory = new CommMemory();
            CommMemory mem = memory;
            String prefix = "jccl-" + commId.substring(0, 8) + "-r" + rank;
            boolean shmOk = Params.SHM_DISABLE.get() == 0;
            boolean anyNet = false;
            for (PeerInfo p : peers) {
                anyNet |= p.hostHash() != me.hostHash() || (!shmOk && p.rank() != rank);
            }
            int onMachine = 0;
            for (PeerInfo p : peers) {
                onMachine += p.machineHash() == me.machineHash() ? 1 : 0;
            }
            // ranks of other "hosts" on this machine (namespaces, containers, NCCL_HOSTID) wait on the same cores
            IdlePolicy policy = IdlePolicy.forLoad(Math.max(shape.localRanks(), onMachine)
                    * (shape.nChannels() + (anyNet ? 1 : 0)),
                    PeerInfo.coresOf(peers, p -> p.machineHash() == me.machineHash()));
            if (anyNet) {
                proxy = new ProxyThread(health, rank, prefix + "-proxy", policy.proxySpins());
            }
            boolean allLocal = shape.nNodes() == 1 && id.rootAddress().getAddress().isLoopbackAddress();
            NetPlugin plugin = anyNet ? NetPlugins.select(rank, allLocal, bootstrap.tls()) : null;
            boolean checksum = NetChecksum.enabled(shape.nNodes() > 1);
            NetTransport net = anyNet ? new NetTransport(mem::suspendableArena, proxy, health, plugin, 0,
                    bootstrap.keys(), rank, timeoutNs, policy, checksum) : null;
            shm = new ShmTransport(mem::suspendableArena, health, commId, rank, timeoutNs, policy);
            ShmTransport shmT = shm;
            Transport[] byPeer = new Transport[nRanks];
            for (PeerInfo p : peers) {
                byPeer[p.rank()] = shmOk && p.hostHash() == me.hostHash() ? shmT : net;
            }
            trace.phase(InitPhase.TRANSPORTS);
            long[] hostOfRank = new long[nRanks];
            for (PeerInfo p : peers) {
                hostOfRank[p.rank()] = p.hostHash();
            }
            ChannelLayout layout = ChannelLayout.of(hostOfRank, rank, shape.nChannels());
            Connections conns = new Connections(rank, nRanks, ChannelLayout.connectorChannels(shape.nChannels()),
                    bootstrap, peer -> byPeer[peer]);
            Ring[] rings = layout.rings();
            List<Connections.Need> needs = new ArrayList<>();
            for (int c = 0; c < rings.length; c++) {
                if (nRanks > 1) {
                    needs.add(new Connections.Need(c, rings[c].prev(), false, shape.stepBytes()));
                    needs.add(new Connections.Need(c, rings[c].next(), true, shape.stepBytes()));
                }
            }
            conns.connect(needs);
            trace.phase(InitPhase.CONNECT);
            boolean areas = shmOk && shape.nNodes() == 1 && nRanks >= 2 && nRanks <= ShotLimits.MAX_RANKS;
            ShotLimits shots = areas ? ShotLimits.of(nRanks, shape.nChannels()) : ShotLimits.NONE;
            ShmPeerArea area = shots.areaBytes() > 0
                    ? ShmPeerArea.create(bootstrap, commId, shots.areaBytes(), health, timeoutNs, policy,
                            mem::suspendableArena) : null;
            memory.suspendable(conns, net != null ? List.of(shmT, net) : List.of(shmT), needs, area);
            trace.phase(InitPhase.SHARED_MEMORY);
            Config resolved = new Config(Duration.ofNanos(timeoutNs), shape.nChannels(), shape.nChannels(),
                    cfg.commName());
            CommRuntime rt = new CommRuntime(rank, nRanks, commId, resolved, timeoutNs, health, bootstrap, memory,
                    proxy, conns, layout, shape, policy, shm, area, shots,
                    HostTuning.create(nRanks, shape.nNodes(), layout.plan().minLocalRanks(),
                            layout.plan().maxLocalRanks(), shape.nChannels(), !anyNet, TopoEnv.system()));
            trace.phase(InitPhase.RUNTIME);
            trace.complete(rt, peers, rings, byPeer);
            for (int c = 0; c < rings.length && nRanks > 1; c++) {
                for (int t = 0; t < 2; t++) {
                    io.jccl.internal.algorithm.Tree tr = layout.trees()[c][t];
                    Log.info(Subsys.INIT, rank, "Trees [%d] %s->%d->%d (tree %d, %d host(s))", c + t * rings.length,
                            java.util.Arrays.toString(tr.down()), rank, tr.up(), t, shape.nNodes());
                }
            }
            Log.info(Subsys.INIT, rank,
                    "comm %s rank %d nRanks %d nNodes %d localRanks %d nChannels %d - Init COMPLETE "
                    + "(%.1f ms)", commId, rank, nRanks, shape.nNodes(), shape.localRanks(), shape.nChannels(),
                    (System.nanoTime() - t0) / 1e6);
            boolean hasProxy = proxy != null;
            if (Log.enabled(Log.Level.INFO, Subsys.INIT)) {
                Log.info(Subsys.INIT, rank, "comm %s rank %d holds %s%s", commId, rank,
                        Resources.line(bootstrap, conns, shape.nChannels(), hasProxy, mem.stats()),
                        rank == 0 ? "; process: " + ProcessResources.summary() : "");
            }
            resilience.resources(() -> Resources.line(bootstrap, conns, shape.nChannels(), hasProxy, mem.stats()));
            GpuAccess gpu = new GpuAccess(hostOfRank, bootstrap.keys(), health, bootstrap, anyNet
                    ? new GpuNetConnections(mem.gpuNet(), proxy, health, NetPlugins.forDeviceMemory(plugin, rank),
                            0, bootstrap.keys(), rank, nRanks, timeoutNs, bootstrap, checksum) : null);
            return new HostCommunicator(rt, resilience.ready(peers), gpu);
        } catch (RuntimeException e) {
            health.fail(e instanceof JcclException j ? j : new JcclException(Result.INTERNAL_ERROR, e.toString(), e));
            if (proxy != null) {
                proxy.stop();
            }
            if (shm != null) {
                shm.cleanup();
            }
            bootstrap.close();
            if (memory != null) {
                memory.close();
            }
            throw e;
        }
    }

    private static int stepBytes(long buffSize) {
        long s = buffSize / ConnFifo.NSTEPS;
        if (s < 4096 || s > (1 << 30)) {
            throw new JcclException(Result.INVALID_ARGUMENT, "buffer size " + buffSize + " gives slots of " + s
                    + " bytes; use a size between " + (4096 * ConnFifo.NSTEPS) + " and 8 GiB");
        }
        return (int) (s & ~63L);
    }

    public static Communicator fromEnvironment(Config config) {
        return EnvLaunch.init(config);
    }

    /** This process's {@code perProcess} ranks of the communicator the launcher described ({@link EnvLaunch}). */
    public static List<Communicator> fromEnvironment(int perProcess, Config config) {
        return EnvLaunch.initRanks(config, perProcess);
    }

    /** All ranks of a communicator in this process, each initialised on its own thread. */
    public static List<Communicator> initAll(int nRanks, Config config) {
        if (nRanks < 1) {
            throw new JcclException(Result.INVALID_ARGUMENT, "initAll needs at least one rank, got " + nRanks);
        }
        int[] ranks = new int[nRanks];
        for (int r = 0; r < nRanks; r++) {
            ranks[r] = r;
        }
        return initRanks(Jccl.uniqueId(), nRanks, ranks, config);
    }

    /**
     * Ranks {@code ranks} of the communicator {@code id} names, in this process, each initialised on its own thread
     * (NCCL's ncclCommInitRank calls inside a group); the other ranks join from other processes. The result is in the
     * order of {@code ranks}; its members can be closed one after another from one thread ({@link LocalCloseGroup}).
     */
    public static List<Communicator> initRanks(UniqueId id, int nRanks, int[] ranks, Config config) {
        checkRanks(nRanks, ranks);
        if (id == null) {
            throw new JcclException(Result.INVALID_ARGUMENT, "UniqueId is null");
        }
        return initRanks(List.of(id), nRanks, ranks, config);
    }

    /** As {@link #initRanks}, with one bootstrap root per id ({@link #initScalable}). */
    public static List<Communicator> initRanksScalable(List<UniqueId> ids, int nRanks, int[] ranks, Config config) {
        checkRanks(nRanks, ranks);
        return initRanks(ScalableIds.roots(ids, nRanks, ranks[0]), nRanks, ranks, config);
    }

    private static List<Communicator> initRanks(List<UniqueId> roots, int nRanks, int[] ranks, Config config) {
        int k = ranks.length;
        List<Communicator> comms = RankThreads.run("jccl-init", k, i -> init(roots, nRanks, ranks[i], config),
                Communicator::abort);
        LocalCloseGroup closing = new LocalCloseGroup(nRanks, k);
        for (Communicator c : comms) {
            if (c instanceof HostCommunicator h) {
                h.closeTogetherWith(closing);
            }
        }
        return comms;
    }

    /** Ranks for {@link #initRanks}: at least one, each in [0, nRanks), none twice. */
    private static void checkRanks(int nRanks, int[] ranks) {
        if (ranks == null || ranks.length == 0) {
            throw new JcclException(Result.INVALID_ARGUMENT, "initRanks needs at least one rank");
        }
        boolean[] seen = new boolean[Math.max(nRanks, 0)];
        for (int r : ranks) {
            if (r < 0 || r >= nRanks) {
                throw new JcclException(Result.INVALID_ARGUMENT, "rank " + r + " is not in [0, " + nRanks + ")");
            }
            if (seen[r]) {
                throw new JcclException(Result.INVALID_ARGUMENT, "rank " + r + " is given twice in "
                        + java.util.Arrays.toString(ranks));
            }
            seen[r] = true;
        }
    }
}
