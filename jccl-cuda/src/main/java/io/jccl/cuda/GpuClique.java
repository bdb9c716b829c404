package io.jccl.cuda;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.internal.clique.AllReduceArgs;
import io.jccl.cuda.internal.clique.AllReducePlanner;
import io.jccl.cuda.internal.clique.CliqueMemory;
import io.jccl.cuda.internal.driver.CuMemory;
import io.jccl.cuda.internal.driver.CuModules;
import io.jccl.cuda.internal.kernels.KernelModules;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Several GPUs of this process that run collectives together through peer memory (NVLink or PCIe P2P), like
 * {@code ncclCommInitAll}: rank {@code g} is {@code devices[g]}. {@link #allReduce} launches one kernel per GPU on
 * the caller's streams and returns at once (stream-ordered, asynchronous to the host, CUDA-graph capturable). The
 * kernel is picked by size ({@link CliqueOptions}): LL one-shot (barrier-free) for small messages, pull one-shot
 * and two-shot (reduce-scatter + all-gather) with per-block cross-GPU barriers for medium ones, an NCCL-style ring
 * for large ones.
 *
 * <p>Every rank must see the same sequence of calls (as with NCCL). A kernel stuck because a peer never joined
 * can be released with {@link #abort()} (or a {@link #synchronize} deadline); the clique is unusable afterwards.
 *
 * <p>Thread: one thread issues the collectives of a clique (launching allocates nothing and is not synchronised);
 * {@link #abort()} may be called from any thread. Mirrors NCCL's single-process communicator clique.
 */
public final class GpuClique implements AutoCloseable {
    private static final AllReduceAlgorithm[] KERNELS = {AllReduceAlgorithm.LL, AllReduceAlgorithm.PUSH,
        AllReduceAlgorithm.ONE_SHOT, AllReduceAlgorithm.TWO_SHOT, AllReduceAlgorithm.RING};
    /**
     * With {@code -Djccl.cuda.launch=library} kernels are loaded context-independently (cuLibraryLoadData) and
     * launched without making each GPU's context current first; the default loads one module per context.
     */
    private static final boolean LIBRARY_LAUNCH = "library".equals(System.getProperty("jccl.cuda.launch", "module"));
    private static final DataType[] TYPES = {DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16};
    private static final RedOp[] OPS = {RedOp.SUM, RedOp.PROD, RedOp.MIN, RedOp.MAX};

    private final CudaDevice[] devices;
    private final CliqueOptions options;
    private final CliqueMemory[] memory;
    private final PinnedBuffer abortWord;
    private final long[] abortDevicePointer;
    private final Arena arena;
    private final AllReduceArgs[] args;
    private final AllReducePlanner planner;
    private final AllReducePlanner.Plan plan = new AllReducePlanner.Plan();
    private final MemorySegment[] functions;
    private volatile boolean aborted;
    private boolean closed;
    private int skipRankForTest = -1;

    private GpuClique(CudaDevice[] devices, CliqueOptions options) {
        this.devices = devices;
        this.options = options;
        int n = devices.length;
        int resident = Integer.MAX_VALUE;
        for (CudaDevice d : devices) {
            resident = Math.min(resident, d.multiprocessorCount());
        }
        this.planner = new AllReducePlanner(options, n, resident);
        this.functions = new MemorySegment[KERNELS.length * TYPES.length * OPS.length * n];
        this.memory = new CliqueMemory[n];
        this.arena = Arena.ofShared();
        PinnedBuffer word = null;
        try {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    if (i != j && !devices[i].canAccessPeer(devices[j])) {
                        throw new JcclException(Result.INVALID_USAGE, "GPU " + devices[i].ordinal() + " cannot access "
                                + "the memory of GPU " + devices[j].ordinal() + " (no NVLink or PCIe peer-to-peer path); "
                                + "a GpuClique needs peer access between all its GPUs");
                    }
                }
            }
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    if (i != j) {
                        devices[i].enablePeerAccess(devices[j]);
                    }
                }
            }
            word = PinnedBuffer.allocate(devices[0], 128);
            this.abortDevicePointer = new long[n];
            for (int g = 0; g < n; g++) {
                devices[g].makeCurrent();
                abortDevicePointer[g] = CuMemory.hostDevicePointer(word.segment());
                memory[g] = new CliqueMemory(devices[g], n, options);
            }
            this.args = new AllReduceArgs[n];
            for (int g = 0; g < n; g++) {
                args[g] = new AllReduceArgs(arena.allocate(AllReduceArgs.LAYOUT), arena.allocate(ADDRESS));
                int next = (g + 1) % n;
                int prev = (g - 1 + n) % n;
                args[g].setRing(memory[g].ringCtlAddress(), memory[g].fifoAddress(), memory[next].ringCtlAddress(),
                        memory[next].fifoAddress(), memory[prev].ringCtlAddress(), options.ringSlotBytes(), 0);
                args[g].setSlots(memory[g].llSlotWords(), options.pushMaxBytes());
                for (int r = 0; r < n; r++) {
                    args[g].setAreas(r, memory[r].signalsAddress(), memory[r].llAddress(), memory[r].pushAddress());
                }
            }
        } catch (RuntimeException e) {
            for (CliqueMemory m : memory) {
                if (m != null) {
                    m.close();
                }
            }
            if (word != null) {
                word.close();
            }
            arena.close();
            throw e;
        }
        this.abortWord = word;
    }

    /** Opens a clique of {@code devices} (rank g = devices[g]) with {@link CliqueOptions#fromSystemProperties()}. */
    public static GpuClique open(CudaDevice... devices) {
        return open(CliqueOptions.fromSystemProperties(), devices);
    }

    /**
     * Opens a clique: checks and enables peer access between every pair, allocates and zeroes each GPU's signal,
     * FIFO and LL areas.
     *
     * @throws JcclException {@link Result#INVALID_ARGUMENT} for 0 or more than 8 devices or a repeated device,
     *                       {@link Result#INVALID_USAGE} when two GPUs cannot be peers
     */
    public static GpuClique open(CliqueOptions options, CudaDevice... devices) {
        if (devices.length < 1 || devices.length > AllReduceArgs.MAX_RANKS) {
            throw new JcclException(Result.INVALID_ARGUMENT, "a GpuClique has 1 to " + AllReduceArgs.MAX_RANKS
                    + " GPUs, got " + devices.length);
        }
        for (int i = 0; i < devices.length; i++) {
            for (int j = i + 1; j < devices.length; j++) {
                if (devices[i] == devices[j]) {
                    throw new JcclException(Result.INVALID_ARGUMENT, "GPU " + devices[i].ordinal()
                            + " appears twice in the clique; each rank needs its own GPU");
                }
            }
        }
        return new GpuClique(devices.clone(), options);
    }

    /** Number of GPUs (ranks). */
    public int size() {
        return devices.length;
    }

    /** The GPU of rank {@code rank}. */
    public CudaDevice device(int rank) {
        return devices[rank];
    }

    public CliqueOptions options() {
        return options;
    }

    /** The kernel {@link #allReduce} would use for {@code count} elements of {@code type}. */
    public AllReduceAlgorithm algorithmFor(long count, DataType type, boolean inPlace) {
        return planner.choose(count * type.sizeBytes(), inPlace);
    }

    /**
     * recv[g] = op over all ranks r of send[r], for {@code count} elements, on every GPU g; queued on
     * {@code streams[g]}, returns before the work runs. {@code send[g] == recv[g]} (same address) is in place.
     *
     * @throws JcclException {@link Result#INVALID_ARGUMENT} for wrong array lengths, buffers or streams on the
     *                       wrong GPU, buffers too small, partly overlapping send/recv, or an unsupported type/op;
     *                       {@link Result#ABORTED} after {@link #abort()}
     */
    public void allReduce(DeviceBuffer[] send, DeviceBuffer[] recv, long count, DataType type, RedOp op,
                          CudaStream[] streams) {
        checkUsable();
        int n = devices.length;
        int ti = typeIndex(type);
        int oi = opIndex(op);
        boolean inPlace = validate(send, recv, count, type, streams);
        if (count == 0) {
            return;
        }
        if (n == 1) {
            if (send[0].address() != recv[0].address()) {
                recv[0].copyFromAsync(send[0], count * type.sizeBytes(), streams[0]);
            }
            return;
        }
        planner.plan(count, type.sizeBytes(), inPlace, plan);
        int ki = kernelIndex(plan.algorithm());
        for (int g = 0; g < n; g++) {
            function(ki, ti, oi, g);
        }
        for (int g = 0; g < n; g++) {
            AllReduceArgs a = args[g];
            for (int r = 0; r < n; r++) {
                a.setBuffers(r, send[r].address(), recv[r].address());
            }
            a.setCall(count, abortDevicePointer[g], g, n);
            if (plan.algorithm() == AllReduceAlgorithm.RING) {
                int next = (g + 1) % n;
                int prev = (g - 1 + n) % n;
                a.setRing(memory[g].ringCtlAddress(), memory[g].fifoAddress(), memory[next].ringCtlAddress(),
                        memory[next].fifoAddress(), memory[prev].ringCtlAddress(), options.ringSlotBytes(),
                        plan.chunkElems());
            }
            if (g == skipRankForTest) {
                continue;
            }
            if (!LIBRARY_LAUNCH) {
                devices[g].makeCurrent();
            }
            CuModules.launch(functions[((ki * TYPES.length + ti) * OPS.length + oi) * n + g], plan.blocks(),
                    AllReducePlanner.THREADS, 0, streams[g].handle(), a.params());
        }
    }

    /** Loads (JIT-compiles) every kernel on every GPU now instead of at first use. */
    public void preload() {
        for (int k = 0; k < KERNELS.length; k++) {
            for (int t = 0; t < TYPES.length; t++) {
                for (int o = 0; o < OPS.length; o++) {
                    for (int g = 0; g < devices.length; g++) {
                        function(k, t, o, g);
                    }
                }
            }
        }
    }

    /**
     * Waits until all work queued on {@code streams} has finished. When {@code timeout} passes first, aborts the
     * clique (its kernels return within about a millisecond), waits for the streams, and throws.
     *
     * @throws JcclException {@link Result#TIMEOUT} when the deadline passed (the clique is then aborted)
     */
    public void synchronize(CudaStream[] streams, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (CudaStream s : streams) {
            int spins = 0;
            while (!s.isIdle()) {
                if (System.nanoTime() - deadline > 0) {
                    abort();
                    for (CudaStream t : streams) {
                        t.synchronize();
                    }
                    throw new JcclException(Result.TIMEOUT, "GPU collectives on " + Arrays.toString(ordinals())
                            + " did not finish within " + timeout.toMillis() + " ms (a GPU may have skipped a call "
                            + "the others made); the clique was aborted: close it and open a new one");
                }
                if (++spins > 1000) {
                    LockSupport.parkNanos(20_000);
                } else {
                    Thread.onSpinWait();
                }
            }
        }
    }

    /**
     * Raises the abort word: running and future kernels of this clique stop waiting for peers and return (results
     * are then undefined), and every later call throws {@link Result#ABORTED}. Any thread.
     */
    public void abort() {
        aborted = true;
        JAVA_INT.varHandle().setVolatile(abortWord.segment(), 0L, 1);
    }

    /** True after {@link #abort()}. */
    public boolean isAborted() {
        return aborted;
    }

    /** Waits for every GPU of the clique to be idle, then frees its memory. Call {@link #abort()} first if a kernel hangs. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (CudaDevice d : devices) {
            d.synchronize();
        }
        for (CliqueMemory m : memory) {
            m.close();
        }
        abortWord.close();
        arena.close();
    }

    /** Sets every GPU's LL epoch (for tests of the epoch wrap-around). */
    void setLlEpochForTest(int epoch) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocateFrom(JAVA_INT, epoch);
            for (int g = 0; g < devices.length; g++) {
                memory[g].signals().slice(CliqueMemory.LL_EPOCH_OFFSET, 4).copyFrom(v);
            }
        }
    }

    /** Makes {@link #allReduce} skip launching on {@code rank} (a peer that never comes; for abort tests). */
    void skipRankForTest(int rank) {
        skipRankForTest = rank;
    }

    private MemorySegment function(int ki, int ti, int oi, int g) {
        int idx = ((ki * TYPES.length + ti) * OPS.length + oi) * devices.length + g;
        MemorySegment fn = functions[idx];
        if (fn == null) {
            AllReduceAlgorithm a = KERNELS[ki];
            String name = KernelModules.allReduceKernel(a.shortName(), TYPES[ti], OPS[oi]);
            fn = LIBRARY_LAUNCH ? KernelModules.kernel(a.module(), name)
                    : KernelModules.function(devices[g], a.module(), name);
            functions[idx] = fn;
        }
        return fn;
    }

    private boolean validate(DeviceBuffer[] send, DeviceBuffer[] recv, long count, DataType type, CudaStream[] streams) {
        int n = devices.length;
        if (send.length != n || recv.length != n || streams.length != n) {
            throw new JcclException(Result.INVALID_ARGUMENT, "allReduce on a clique of " + n + " GPUs needs " + n
                    + " send buffers, recv buffers and streams; got " + send.length + ", " + recv.length + ", "
                    + streams.length);
        }
        if (count < 0) {
            throw new JcclException(Result.INVALID_ARGUMENT, "allReduce count must be >= 0, got " + count);
        }
        long bytes = Math.multiplyExact(count, (long) type.sizeBytes());
        boolean inPlace = false;
        for (int g = 0; g < n; g++) {
            checkOn(send[g].device(), g, "send");
            checkOn(recv[g].device(), g, "recv");
            checkOn(streams[g].device(), g, "stream");
            AllReduceChecks.checkBuffers(g, send[g].address(), send[g].sizeBytes(), recv[g].address(),
                    recv[g].sizeBytes(), bytes);
            inPlace |= send[g].address() == recv[g].address();
        }
        return inPlace;
    }

    private void checkOn(CudaDevice d, int rank, String what) {
        if (d != devices[rank]) {
            throw new JcclException(Result.INVALID_ARGUMENT, what + "[" + rank + "] is on GPU " + d.ordinal()
                    + ", but rank " + rank + " of the clique is GPU " + devices[rank].ordinal());
        }
    }

    private void checkUsable() {
        if (closed) {
            throw new JcclException(Result.INVALID_USAGE, "GpuClique " + Arrays.toString(ordinals()) + " is closed");
        }
        if (aborted) {
            throw new JcclException(Result.ABORTED, "GpuClique " + Arrays.toString(ordinals())
                    + " was aborted; close it and open a new one");
        }
    }

    private int[] ordinals() {
        return Arrays.stream(devices).mapToInt(CudaDevice::ordinal).toArray();
    }

    private static int kernelIndex(AllReduceAlgorithm a) {
        for (int i = 0; i < KERNELS.length; i++) {
            if (KERNELS[i] == a) {
                return i;
            }
        }
        throw new IllegalStateException("no kernel for " + a);
    }

    private static int typeIndex(DataType t) {
        for (int i = 0; i < TYPES.length; i++) {
            if (TYPES[i] == t) {
                return i;
            }
        }
        KernelModules.typeSuffix(t); // throws the INVALID_ARGUMENT that names the supported types
        throw new IllegalStateException();
    }

    private static int opIndex(RedOp op) {
        for (int i = 0; i < OPS.length; i++) {
            if (OPS[i].kind() == op.kind()) {
                return i;
            }
        }
        KernelModules.opSuffix(op); // throws the INVALID_ARGUMENT that names the supported ops
        throw new IllegalStateException();
    }
}
