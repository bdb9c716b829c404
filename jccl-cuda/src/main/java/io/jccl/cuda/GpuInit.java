package io.jccl.cuda;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.cuda.internal.comm.AreaLayout;
import io.jccl.cuda.internal.comm.Clique;
import io.jccl.cuda.internal.comm.GpuStops;
import io.jccl.cuda.internal.comm.PeerAreas;
import io.jccl.cuda.internal.comm.ProcessWiring;
import io.jccl.cuda.internal.enqueue.CollPlanner;
import io.jccl.cuda.internal.enqueue.Enqueuer;
import io.jccl.cuda.internal.enqueue.KernelArgs;
import io.jccl.internal.base.MemoryLedger;
import io.jccl.internal.comm.HostCommunicator;
import io.jccl.internal.comm.RankThreads;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static java.lang.foreign.ValueLayout.ADDRESS;

/**
 * How {@link GpuCommunicator}s are made: an {@code initAll} clique of this process's GPUs, or one rank attached to
 * its host communicator (one process per GPU, several GPUs of a process in a multi-process communicator, a split or
 * a shrink), and the one-thread forms that run each rank's collective setup on a thread of its own.
 *
 * <p>Thread: the caller's (the per-rank threads through {@link RankThreads}). Mirrors NCCL's init.cc
 * (ncclCommInitAll, ncclCommInitRank, ncclCommSplit).
 */
final class GpuInit {
    private GpuInit() {
    }

    static List<GpuCommunicator> initAll(List<CudaDevice> devices, Config config, GpuOptions options) {
        Clique.checkDevices("initAll", devices);
        int n = devices.size();
        AreaLayout layout = AreaLayout.of(n, options);
        List<Communicator> hosts = Communicator.initAll(n, config);
        Clique clique;
        MemoryLedger[] ledgers = new MemoryLedger[n];
        for (int g = 0; g < n; g++) {
            ledgers[g] = new MemoryLedger();
        }
        try {
            clique = Clique.create(devices, layout, hosts, gpuTimeoutMs(config), ledgers);
        } catch (RuntimeException e) {
            hosts.forEach(Communicator::abort);
            throw e;
        }
        List<GpuCommunicator> out = new ArrayList<>(n);
        boolean[][] nvlinks = clique.nvlinks();
        boolean wholeLines = Clique.allLinked(nvlinks);
        int[][] rings = clique.rings(nvlinks);
        for (int g = 0; g < n; g++) {
            out.add(new GpuCommunicator(g, n, devices.get(g), hosts.get(g), options, layout, clique.peerAreas(),
                    clique.abortPointer(g), clique.residentBlocks(), true, wholeLines, rings, clique, null,
                    ledgers[g]));
        }
        return List.copyOf(out);
    }

    /** Builds the GPU side of a one-process-per-GPU communicator on top of {@code host} (which it then owns). */
    static GpuCommunicator attach(Communicator host, CudaDevice device, GpuOptions requested, Config config) {
        ProcessWiring w;
        GpuOptions options;
        AreaLayout layout;
        MemoryLedger ledger = new MemoryLedger();
        try {
            // across hosts every connection is a pair of proxy connectors: fewer channels of smaller slots
            boolean acrossHosts = ProcessWiring.hostCount(host) > 1;
            options = acrossHosts ? ProcessWiring.acrossHosts(requested, host.size()) : requested;
            layout = acrossHosts ? AreaLayout.acrossHosts(host.size(), options) : AreaLayout.of(host.size(), options);
            w = ProcessWiring.connect(host, device, layout, gpuTimeoutMs(config), ledger);
        } catch (RuntimeException e) {
            host.abort();
            throw e;
        }
        return new GpuCommunicator(host.rank(), host.size(), device, host, options, layout, w.peers(),
                w.abortPointer(), w.residentBlocks(), w.allInThisProcess(), w.wholeLineLinks(), w.rings(), null, w,
                ledger);
    }

    /** {@link #attach} of every host rank to its device, each on its own thread (wiring is collective). */
    static List<GpuCommunicator> attachAll(List<Communicator> hosts, List<CudaDevice> devices, Config config) {
        GpuOptions options = GpuOptions.fromSystemProperties();
        return RankThreads.run("jccl-gpu-init", hosts.size(), i -> attach(hosts.get(i), devices.get(i), options,
                config), GpuInit::abandon);
    }

    static List<GpuCommunicator> splitAll(List<GpuCommunicator> comms, int[] colors, int[] keys) {
        int n = comms.size();
        if (colors.length != n || keys.length != n) {
            throw new JcclException(Result.INVALID_ARGUMENT, "splitAll needs a color and a key per communicator: "
                    + n + " communicators, " + colors.length + " colors, " + keys.length + " keys");
        }
        return RankThreads.run("jccl-split", n, r -> comms.get(r).split(colors[r], keys[r]), GpuInit::abandon);
    }

    /** A rank made while another failed: aborted first, as its failed peers will not reach close (no barrier). */
    private static void abandon(GpuCommunicator g) {
        g.abort();
        g.close();
    }

    /**
     * NCCL's "Init COMPLETE" line at INFO, with how the peers are reached and the allReduce kernels by size; and rank
     * 0's warning that JCCL_REPRODUCIBLE does not reach the GPU kernels.
     */
    static void logComplete(int rank, String name, String commId, String peers, boolean nvlink, Enqueuer enqueuer) {
        if (rank == 0 && Params.REPRODUCIBLE.get()) {
            Log.warn(rank, "JCCL_REPRODUCIBLE applies to host communicators only: this GPU communicator's allReduce "
                    + "and reduceScatter results keep the reduction order of the kernel each call runs");
        }
        if (Log.enabled(Log.Level.INFO, Subsys.INIT)) {
            String net = enqueuer.planner().netPricing();
            Log.info(Subsys.INIT, rank, "%s: init COMPLETE (communicator %s; %s%s%s); allReduce: %s%s", name,
                    commId, peers, nvlink ? ", NVLink" : "", enqueuer.programmaticLaunch() ? ""
                            : ", programmatic launch off: ranks share a GPU", enqueuer.planner().allReduceRanges(),
                    net != null ? "; " + net : "");
        }
    }

    /** {@link GpuCommunicator#initRanks}: the arguments checked, then the host ranks joined and attached. */
    static List<GpuCommunicator> initRanks(UniqueId id, int nRanks, int[] ranks, List<CudaDevice> devices,
                                           Config config) {
        Clique.checkDevices("initRanks", devices);
        if (ranks.length != devices.size()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "initRanks needs a device per rank: " + ranks.length
                    + " ranks, " + devices.size() + " devices");
        }
        return attachAll(Communicator.initRanks(id, nRanks, ranks, config), devices, config);
    }

    /** A lost peer process stops every rank's kernels at once (unless the communicator was closed already). */
    static void stopOnHostFailure(Communicator host, GpuStops stops, BooleanSupplier closed) {
        if (host instanceof HostCommunicator h) {
            h.onFailure(() -> {
                if (!closed.getAsBoolean()) {
                    stops.hostFailed(host.asyncError());
                }
            });
        }
    }

    /**
     * A rank's kernel arguments with the fixed fields, the ring orders, the trees (those {@code wiring} found across
     * hosts, else one chain in ring order) and every rank's areas written.
     */
    static KernelArgs kernelArgs(Arena arena, int rank, int nRanks, long abortPointer, AreaLayout layout,
                                 int[][] rings, PeerAreas peers, ProcessWiring wiring) {
        KernelArgs args = new KernelArgs(arena.allocate(KernelArgs.LAYOUT), arena.allocate(ADDRESS));
        args.setCommunicator(rank, nRanks, abortPointer, layout.slotBytes(), layout.llSlotWords(),
                layout.pushSlotBytes(), layout.channels());
        args.setRings(rings);
        args.setTrees(wiring != null ? wiring.trees() : ProcessWiring.treeLinks(rings[0], new long[nRanks], rank));
        peers.writeTables(args, layout);
        return args;
    }

    /**
     * A rank's enqueuer, launching without programmatic dependent launch where ranks share a GPU ({@code clique}'s or
     * {@code wiring}'s: one of them is null).
     */
    static Enqueuer enqueuer(CudaDevice device, String commId, int rank, int nRanks, KernelArgs args,
                             CollPlanner planner, boolean deferInGroups, Clique clique, ProcessWiring wiring) {
        Enqueuer e = new Enqueuer(device, commId, rank, nRanks, args, planner, deferInGroups);
        if (clique != null ? clique.sharesGpus() : wiring.sharesGpus()) {
            e.noProgrammaticLaunch();
        }
        return e;
    }

    /** A rank's planner; across hosts ({@code wiring}'s, null: one process) priced by NCCL's model over NET. */
    static CollPlanner planner(GpuOptions options, int nRanks, int residentBlocks, boolean peerPointers,
                               boolean wholeLineLinks, ProcessWiring wiring) {
        int hosts = wiring != null ? wiring.hosts() : 1;
        return new CollPlanner(options, nRanks, residentBlocks, peerPointers, wholeLineLinks, hosts,
                wiring != null ? wiring.transport() : null,
                hosts > 1 ? wiring.netShape().model(nRanks, options.ringChannels()) : null);
    }

    /** Config.timeout, else JCCL_TIMEOUT_MS: the longest one GPU wait for a peer may last. */
    static long gpuTimeoutMs(Config config) {
        return config.timeout() != null ? Math.max(1, config.timeout().toMillis()) : Params.TIMEOUT_MS.get();
    }
}
