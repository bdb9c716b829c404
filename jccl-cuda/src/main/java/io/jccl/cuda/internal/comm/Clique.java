package io.jccl.cuda.internal.comm;

import io.jccl.Communicator;
import io.jccl.Group;
import io.jccl.JcclException;
import io.jccl.Jccl;
import io.jccl.Result;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.internal.driver.CuMemory;
import io.jccl.cuda.internal.enqueue.KernelArgs;
import io.jccl.internal.base.MemoryLedger;
import io.jccl.internal.transport.PeerExchange;
import io.jccl.internal.topology.TopoEnv;

import java.util.ArrayList;
import java.util.List;

/**
 * What the ranks of a one-process communicator ({@code GpuCommunicator.initAll}) share: the GPUs with peer access
 * enabled between every pair, each rank's collective memory (reachable from every GPU by its plain address), one
 * {@link SharedControl} (the host-mapped abort area, the call ledger, the stop note), and the host communicators.
 * Freed when the last rank closes: a rank's memory may be written by a peer's kernel until that peer is done too, so
 * nothing is freed while any rank is open; the host communicators close together inside one group.
 *
 * <p>For tests on a machine with one GPU, {@code -Djccl.cuda.shareDevices=true} lets a GPU appear more than once: its
 * ranks reach each other's memory without peer access, and each gets an equal share of its multiprocessors so that
 * all ranks' kernels stay resident together (they wait on each other).
 *
 * <p>Thread: created by the initAll caller; {@link #release} from any thread (synchronised). Mirrors what
 * ncclCommInitAll sets up for one process driving several GPUs.
 */
public final class Clique {
    private final List<CudaDevice> devices;
    private final AreaLayout layout;
    private final MemoryLedger[] ledgers;
    /** Each rank's area; null while that rank is suspended. */
    private final RankArea[] areas;
    private final SharedControl control;
    private final long[] abortPointers;
    private final List<Communicator> hosts;
    private int open;

    private Clique(List<CudaDevice> devices, AreaLayout layout, MemoryLedger[] ledgers, RankArea[] areas,
                   SharedControl control, long[] abortPointers, List<Communicator> hosts) {
        this.devices = devices;
        this.layout = layout;
        this.ledgers = ledgers;
        this.areas = areas;
        this.control = control;
        this.abortPointers = abortPointers;
        this.hosts = hosts;
        this.open = devices.size();
    }

    /**
     * Checks and enables peer access between every pair of {@code devices}, allocates every rank's memory, counted
     * on rank g's {@code ledgers[g]}.
     *
     * @throws JcclException {@link Result#INVALID_USAGE} when two GPUs cannot reach each other's memory
     */
    public static Clique create(List<CudaDevice> devices, AreaLayout layout, List<Communicator> hosts,
                                long timeoutMs, MemoryLedger[] ledgers) {
        int n = devices.size();
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (devices.get(i) != devices.get(j) && !devices.get(i).canAccessPeer(devices.get(j))) {
                    throw new JcclException(Result.INVALID_USAGE, "GPU " + devices.get(i).ordinal() + " cannot access "
                            + "the memory of GPU " + devices.get(j).ordinal()
                                    + " (no NVLink or PCIe peer-to-peer path); "
                            + "initAll needs peer access between all its GPUs: use one process per GPU instead");
                }
            }
        }
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (devices.get(i) != devices.get(j)) {
                    devices.get(i).enablePeerAccess(devices.get(j));
                }
            }
        }
        RankArea[] areas = new RankArea[n];
        SharedControl control = null;
        try {
            for (int g = 0; g < n; g++) {
                areas[g] = RankArea.allocate(devices.get(g), layout, ledgers[g]);
            }
            control = SharedControl.inProcess(devices.get(0), n, timeoutMs);
            long[] ptrs = new long[n];
            for (int g = 0; g < n; g++) {
                devices.get(g).makeCurrent();
                ptrs[g] = CuMemory.hostDevicePointer(control.abortArea().segment());
            }
            return new Clique(List.copyOf(devices), layout, ledgers.clone(), areas, control, ptrs,
                    List.copyOf(hosts));
        } catch (RuntimeException e) {
            for (RankArea a : areas) {
                if (a != null) {
                    a.close();
                }
            }
            if (control != null) {
                control.close();
            }
            throw e;
        }
    }

    /**
     * 1 to 8 GPUs, none twice (unless tests share them), for the factory named {@code call}.
     *
     * @throws JcclException {@link Result#INVALID_ARGUMENT} naming the problem
     */
    public static void checkDevices(String call, List<CudaDevice> devices) {
        int n = devices.size();
        if (n < 1 || n > KernelArgs.MAX_RANKS) {
            throw new JcclException(Result.INVALID_ARGUMENT, "GpuCommunicator." + call + " takes 1 to "
                    + KernelArgs.MAX_RANKS + " GPUs, got " + n);
        }
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                if (devices.get(i) == devices.get(j) && !sharesDevices()) {
                    throw new JcclException(Result.INVALID_ARGUMENT, "GPU " + devices.get(i).ordinal()
                            + " appears twice in " + call + "; each rank needs its own GPU (tests may share one with"
                            + " -Djccl.cuda.shareDevices=true)");
                }
            }
        }
    }

    /** Whether tests asked to let several ranks share one GPU ({@code jccl.cuda.shareDevices}). */
    public static boolean sharesDevices() {
        return io.jccl.internal.param.InternalProperties.CUDA_SHARE_DEVICES.get();
    }

    /** The clique's GPUs, rank by rank. */
    public List<CudaDevice> devices() {
        return devices;
    }

    public synchronized PeerAreas peerAreas() {
        long[] bases = new long[areas.length];
        for (int r = 0; r < areas.length; r++) {
            bases[r] = areas[r].base();
        }
        return new PeerAreas(bases);
    }

    public synchronized RankArea area(int rank) {
        return areas[rank];
    }

    /**
     * Rank {@code rank}'s memory for suspend and resume: the peers' areas are reached by address (nothing to
     * unmap), so release waits for every rank's kernels to be done (a barrier) and frees the rank's area; restore
     * allocates it again and, once every rank has (a barrier), reads every rank's new address.
     */
    public RankMemory memory(int rank) {
        return new RankMemory() {
            @Override
            public String suspendRefusal() {
                return null;
            }

            @Override
            public void release(PeerExchange exchange) {
                exchange.barrier();
                RankArea a;
                synchronized (Clique.this) {
                    a = areas[rank];
                    areas[rank] = null;
                }
                if (a != null) {
                    a.close();
                }
            }

            @Override
            public PeerAreas restore(PeerExchange exchange) {
                RankArea a = RankArea.allocate(devices.get(rank), layout, ledgers[rank]);
                synchronized (Clique.this) {
                    areas[rank] = a;
                }
                exchange.barrier();
                return peerAreas();
            }
        };
    }

    /** The abort word's address as GPU {@code rank}'s kernels read it. */
    public long abortPointer(int rank) {
        return abortPointers[rank];
    }

    /** The abort area, call ledger and stop note every rank shares. */
    public SharedControl control() {
        return control;
    }

    /**
     * nvlinks[r][q]: whether GPUs r and q are linked by NVLink ({@link CudaDevice#nativeAtomicsWith}); ranks that share
     * a GPU count as linked (their memory is local).
     */
    public boolean[][] nvlinks() {
        int n = devices.size();
        boolean[][] m = new boolean[n][n];
        for (int r = 0; r < n; r++) {
            for (int q = 0; q < n; q++) {
                m[r][q] = r != q && (devices.get(r) == devices.get(q)
                        || devices.get(r).nativeAtomicsWith(devices.get(q)));
            }
        }
        return m;
    }

    /** Whether every pair of a links matrix is linked. */
    public static boolean allLinked(boolean[][] nvlinks) {
        for (int r = 0; r < nvlinks.length; r++) {
            for (int q = 0; q < nvlinks.length; q++) {
                if (r != q && !nvlinks[r][q]) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * The ring orders of the clique's ring kernels ({@link GpuRings}), rank g on GPU g. When ranks share a GPU, every
     * rank stands for a GPU of its own at a made-up bus id (NCCL_GRAPH_FILE still names them by rank).
     */
    public int[][] rings(boolean[][] nvlinks) {
        List<String> busIds = GpuRings.onePerRank(devices.stream().map(CudaDevice::pciBusId).toList());
        int[][] counts = new int[busIds.size()][];
        for (int r = 0; r < counts.length; r++) {
            boolean[] linked = nvlinks[r];
            counts[r] = CudaGpuProbe.linkCounts(busIds.get(r), busIds, q -> linked[q]);
        }
        return GpuRings.searchOrInOrder(busIds, devices.get(0).computeCapability(), counts, TopoEnv.system(), 0);
    }

    /**
     * The blocks each rank's kernels may use and still be resident with every other rank's: the smallest
     * multiprocessor count of the clique's GPUs, divided among the ranks of a shared GPU.
     */
    public int residentBlocks() {
        int m = Integer.MAX_VALUE;
        for (CudaDevice d : devices) {
            int sharing = (int) devices.stream().filter(x -> x == d).count();
            m = Math.min(m, Math.max(1, d.multiprocessorCount() / sharing));
        }
        return m;
    }

    /** Whether some GPU runs more than one rank (tests with {@code jccl.cuda.shareDevices}). */
    public boolean sharesGpus() {
        return devices.stream().distinct().count() < devices.size();
    }

    /** One rank closed; the last one waits for every GPU, frees all memory and closes the host communicators. */
    @SuppressWarnings("try") // the resource is held for the scope, not used
    public synchronized void release() {
        if (open == 0) {
            return;
        }
        if (--open > 0) {
            return;
        }
        List<RuntimeException> errors = new ArrayList<>();
        for (CudaDevice d : devices) {
            run(errors, d::synchronize);
        }
        for (RankArea a : areas) {
            if (a != null) {   // null: its rank was suspended
                run(errors, a::close);
            }
        }
        run(errors, control::close);
        run(errors, () -> {
            try (Group g = Jccl.group()) {
                for (Communicator h : hosts) {
                    h.close();
                }
            }
        });
        if (!errors.isEmpty()) {
            RuntimeException first = errors.getFirst();
            errors.stream().skip(1).forEach(first::addSuppressed);
            throw first;
        }
    }

    private static void run(List<RuntimeException> errors, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            errors.add(e);
        }
    }
}
