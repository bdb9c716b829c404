package io.jccl.cuda;

import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.cuda.internal.comm.AreaLayout;
import io.jccl.cuda.internal.comm.CallCheck;
import io.jccl.cuda.internal.comm.Clique;
import io.jccl.cuda.internal.comm.GpuStatus;
import io.jccl.cuda.internal.comm.GpuStops;
import io.jccl.cuda.internal.comm.GpuSuspension;
import io.jccl.cuda.internal.comm.PeerAreas;
import io.jccl.cuda.internal.comm.ProcessWiring;
import io.jccl.cuda.internal.comm.SharedControl;
import io.jccl.cuda.internal.enqueue.Enqueuer;
import io.jccl.cuda.internal.enqueue.GpuGroups;
import io.jccl.cuda.internal.enqueue.KernelArgs;
import io.jccl.MemoryStats;
import io.jccl.internal.base.CountedArena;
import io.jccl.internal.base.MemoryLedger;
import io.jccl.internal.comm.GpuAccess;
import io.jccl.internal.comm.HostCommunicator;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.Objects;

/**
 * One rank of a communicator whose ranks are GPUs (NCCL's {@code ncclComm_t} on a device): collectives on
 * {@link DeviceBuffer}s, queued on the caller's {@link CudaStream} and asynchronous to the host, as in NCCL; the
 * caller synchronises the stream (or records an event) before reading results. Every call is one kernel launch
 * (one block per channel); a call allocates nothing. Calls issued while the stream is captured into a CUDA graph
 * work when the graph is replayed, any number of times, with no host work per replay: all counters, epochs and FIFO
 * steps live in device memory and are advanced by the kernels. Memory and streams of other libraries (a tensor's
 * data pointer, PyTorch's current stream) take part through {@link DeviceBuffer#wrap} and {@link CudaStream#wrap}.
 *
 * <p>Two ways to build one: {@link #initAll} (one process drives several GPUs; peers' memory by plain pointers)
 * and {@link #init}/{@link #fromEnvironment} (one process per GPU; the ranks bootstrap through
 * {@link Communicator#init} and exchange CUDA IPC handles of their collective memory with its allGather). Every
 * rank must make the same calls in the same order with matching arguments. A kernel waiting for a peer that never
 * comes gives up after the host communicator's timeout ({@link Config#timeout()}, {@code JCCL_TIMEOUT_MS}, 120 s by
 * default) and stops every kernel of the communicator; {@link #asyncError()} then names the rank, the peer and the
 * collective, and every later call throws that error. {@link #abort()} releases such a kernel at once.
 *
 * <p>Groups: {@link #groupStart()}/{@link #groupEnd()} (or {@link #group()}) are NCCL's group calls for the GPU; what
 * they do to sends, receives and collectives is told in {@link GpuGroup}.
 *
 * <p>Thread: one thread at a time issues a communicator's calls; {@link #abort()} from any thread. Errors are
 * {@link JcclException}s naming the rank, the GPU and the call.
 */
public final class GpuCommunicator implements AutoCloseable {
    private final int rank;
    private final int nRanks;
    private final CudaDevice device;
    private final Communicator host;
    private final GpuOptions options;
    private final Clique clique;
    private final ProcessWiring wiring;
    private final Arena arena;
    private final Enqueuer enqueuer;
    private final KernelArgs args;
    private final AreaLayout layout;
    private final GpuSuspension suspension;
    private final String name;
    private final CallGate gate;
    private final int[][] rings;
    private final CallCheck check;
    private final GpuCalls calls;
    private final GpuStops stops;
    private final GpuStatus status;
    private volatile boolean aborted;
    private volatile boolean closed;
    /** The windows of this rank still open (released when the communicator closes). */
    private final OpenWindows windows = new OpenWindows();

    GpuCommunicator(int rank, int nRanks, CudaDevice device, Communicator host, GpuOptions options,
                            AreaLayout layout, PeerAreas peers, long abortPointer, int residentBlocks,
                            boolean peerPointers, boolean wholeLineLinks, int[][] rings, Clique clique,
                            ProcessWiring wiring, MemoryLedger ledger) {
        this.rank = rank;
        this.nRanks = nRanks;
        this.device = device;
        this.host = host;
        this.options = options;
        this.clique = clique;
        this.wiring = wiring;
        this.arena = new CountedArena(ledger);
        this.layout = layout;
        SharedControl control = clique != null ? clique.control() : wiring.control();
        this.check = new CallCheck(rank, nRanks, control, clique == null, host, arena, this::dropDeferred);
        this.name = GpuStops.nameOf(rank, nRanks, device);
        this.gate = new CallGate(name);
        this.stops = new GpuStops(control, rank, name);
        GpuAccess access = ((HostCommunicator) host).gpuAccess();
        this.suspension = new GpuSuspension(name, rank, device, host, access.exchange(), access.health(),
                clique != null ? clique.memory(rank) : wiring, ledger);
        this.status = GpuStatus.register(host.id(), nRanks, "rank " + rank + " (GPU " + device.ordinal() + ")", control,
                stops, check.defersInGroups(), () -> suspension.stats().describe());
        this.args = GpuInit.kernelArgs(arena, rank, nRanks, abortPointer, layout, rings, peers, wiring);
        this.rings = rings;
        int hosts = wiring != null ? wiring.hosts() : 1;
        this.enqueuer = GpuInit.enqueuer(device, host.id(), rank, nRanks, args, GpuInit.planner(options, nRanks,
                residentBlocks, peerPointers, wholeLineLinks, wiring), check.defersInGroups(), clique, wiring);
        this.calls = new GpuCalls(rank, nRanks, device, options, clique, enqueuer, check, windows, stops);
        CaptureGuard guard = new CaptureGuard(name, suspension::epoch);
        enqueuer.onLaunch(s -> s.launched(guard));
        GpuInit.logComplete(rank, name, host.id(), hosts > 1 ? "ranks on " + hosts + " hosts: " + wiring.connections()
                : peerPointers ? "every buffer addressable" : "peers through CUDA IPC", wholeLineLinks, enqueuer);
        GpuInit.stopOnHostFailure(host, stops, () -> closed);
    }

    /**
     * One process driving {@code devices} (rank g is {@code devices.get(g)}), like {@code ncclCommInitAll}: peer
     * access is enabled between every pair; the host communicators ({@link #host()}) are thread ranks of this
     * process. Options from {@link GpuOptions#fromSystemProperties()}.
     *
     * @throws JcclException {@link Result#INVALID_ARGUMENT} for 0 or more than 8 devices or a repeated device,
     *                       {@link Result#INVALID_USAGE} when two GPUs cannot be peers
     */
    public static List<GpuCommunicator> initAll(List<CudaDevice> devices) {
        return initAll(devices, Config.defaults(), GpuOptions.fromSystemProperties());
    }

    /** As {@link #initAll(List)} with a host communicator configuration. */
    public static List<GpuCommunicator> initAll(List<CudaDevice> devices, Config config) {
        return initAll(devices, config, GpuOptions.fromSystemProperties());
    }

    /** As {@link #initAll(List)} with explicit options. */
    public static List<GpuCommunicator> initAll(List<CudaDevice> devices, Config config, GpuOptions options) {
        return GpuInit.initAll(devices, config, options);
    }

    /**
     * Joins a communicator of {@code nRanks} processes as {@code rank}, on {@code device} (one GPU per process):
     * bootstraps the host communicator with {@code id}, exchanges the CUDA IPC handles of every rank's collective
     * memory, and maps the peers'. Blocks until every rank has joined.
     */
    public static GpuCommunicator init(UniqueId id, int nRanks, int rank, CudaDevice device) {
        return init(id, nRanks, rank, device, Config.defaults());
    }

    /** As {@link #init(UniqueId, int, int, CudaDevice)} with a host communicator configuration. */
    public static GpuCommunicator init(UniqueId id, int nRanks, int rank, CudaDevice device, Config config) {
        Objects.requireNonNull(device, "device");
        return GpuInit.attach(Communicator.init(id, nRanks, rank, config), device, GpuOptions.fromSystemProperties(),
                config);
    }

    /**
     * As {@link #init(UniqueId, int, int, CudaDevice, Config)} through several bootstrap roots (NCCL's
     * {@code ncclCommInitRankScalable}): the host communicator is made by {@link Communicator#initScalable}, root i
     * serving the i-th contiguous group of ranks; every rank passes the same ids in the same order.
     */
    public static GpuCommunicator initScalable(List<UniqueId> ids, int nRanks, int rank, CudaDevice device,
                                               Config config) {
        Objects.requireNonNull(device, "device");
        return GpuInit.attach(Communicator.initScalable(ids, nRanks, rank, config), device,
                GpuOptions.fromSystemProperties(), config);
    }

    /**
     * Joins the communicator the launcher described in the environment ({@link Communicator#fromEnvironment()}:
     * JCCL_COMM_ID, RANK/WORLD_SIZE, OMPI_COMM_WORLD_*, SLURM_*), on {@code device} (usually the local rank's GPU).
     */
    public static GpuCommunicator fromEnvironment(CudaDevice device) {
        return fromEnvironment(device, Config.defaults());
    }

    /** As {@link #fromEnvironment(CudaDevice)} with a host communicator configuration. */
    public static GpuCommunicator fromEnvironment(CudaDevice device, Config config) {
        Objects.requireNonNull(device, "device");
        return GpuInit.attach(Communicator.fromEnvironment(config), device, GpuOptions.fromSystemProperties(), config);
    }

    /**
     * Several GPUs of this process in a communicator whose other ranks are in other processes (NCCL's
     * {@code ncclCommInitRank} for each device inside one group; one process per host driving its GPUs): rank
     * {@code ranks[i]} runs on {@code devices.get(i)}, each joined on a thread of its own; blocks until every rank of
     * the communicator has joined. The ranks of this process reach each other by address (peer access), the others'
     * through CUDA IPC. Drive them from one thread (GPU calls return once launched; use {@link #group()} for
     * send/recv, and with {@code JCCL_CHECK_CALLS=1}, whose check waits for every rank, for collectives too) or one
     * thread each; they can be closed one after another from one thread.
     *
     * @throws JcclException {@link Result#INVALID_ARGUMENT} for a bad or repeated rank, a repeated device or lists
     *                       of different lengths
     */
    public static List<GpuCommunicator> initRanks(UniqueId id, int nRanks, int[] ranks, List<CudaDevice> devices,
                                                  Config config) {
        return GpuInit.initRanks(id, nRanks, ranks, devices, config);
    }

    /**
     * This process's GPUs in the communicator the launcher described ({@link #fromEnvironment(CudaDevice)}), one
     * rank each: with {@code WORLD_SIZE} processes of {@code devices.size()} GPUs the communicator has
     * {@code WORLD_SIZE × devices.size()} ranks, and process {@code RANK} holds ranks {@code RANK × devices.size()}
     * onwards, on {@code devices} in order. Every process must pass as many devices. See {@link #initRanks}.
     */
    public static List<GpuCommunicator> fromEnvironment(List<CudaDevice> devices, Config config) {
        Clique.checkDevices("fromEnvironment", devices);
        return GpuInit.attachAll(Communicator.fromEnvironment(devices.size(), config), devices, config);
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return nRanks;
    }

    public CudaDevice device() {
        return device;
    }

    /** The ring orders this communicator's ring kernels follow (from the topology search), for tests. */
    int[][] rings() {
        return rings;
    }

    /** The host communicator of the same ranks (bootstrap, host-memory collectives, barriers). */
    public Communicator host() {
        return host;
    }

    public GpuOptions options() {
        return options;
    }

    // ---- collectives ---------------------------------------------------------------------------------------

    /** recv = op over all ranks of send ({@code count} elements); in place when send and recv are the same. */
    public void allReduce(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, RedOp op,
            CudaStream stream) {
        calls.allReduce(where("allReduce"), send, recv, count, type, op, stream);
    }

    /** Every rank's recv = root's send; {@code send} is read on the root only (may be null elsewhere). */
    public void broadcast(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, int root,
            CudaStream stream) {
        calls.broadcast(where("broadcast"), send, recv, count, type, root, stream);
    }

    /** root's recv = op over all ranks of send; {@code recv} is written on the root only (may be null elsewhere). */
    public void reduce(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, RedOp op, int root,
                       CudaStream stream) {
        calls.reduce(where("reduce"), send, recv, count, type, op, root, stream);
    }

    /** Rank r's {@code sendCount} elements land at block r of every rank's recv (size() blocks). */
    public void allGather(DeviceBuffer send, DeviceBuffer recv, long sendCount, DataType type, CudaStream stream) {
        calls.allGather(where("allGather"), send, recv, sendCount, type, stream);
    }

    /** send holds size() blocks of {@code recvCount}; rank r's recv = op over all ranks of their block r. */
    public void reduceScatter(DeviceBuffer send, DeviceBuffer recv, long recvCount, DataType type, RedOp op,
                              CudaStream stream) {
        calls.reduceScatter(where("reduceScatter"), send, recv, recvCount, type, op, stream);
    }

    /**
     * Block p ({@code count} elements) of send goes to rank p, which stores it as block rank() of its recv. In place
     * (send == recv) only while a block fits the LL size (the smaller of {@link GpuOptions#llMaxBytes()} and 64 KiB),
     * as NCCL does not
     * support it either.
     */
    public void allToAll(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, CudaStream stream) {
        calls.allToAll(where("allToAll"), send, recv, count, type, stream);
    }

    /** root's recv block r = rank r's send ({@code sendCount} elements); recv may be null off the root. */
    public void gather(DeviceBuffer send, DeviceBuffer recv, long sendCount, DataType type, int root,
            CudaStream stream) {
        calls.gather(where("gather"), send, recv, sendCount, type, root, stream);
    }

    /** Rank r's recv = block r ({@code recvCount} elements) of root's send; send may be null off the root. */
    public void scatter(DeviceBuffer send, DeviceBuffer recv, long recvCount, DataType type, int root,
            CudaStream stream) {
        calls.scatter(where("scatter"), send, recv, recvCount, type, root, stream);
    }

    /** Sends {@code count} elements to {@code peer}, which calls {@link #recv} with the same count and type. */
    public void send(DeviceBuffer buf, long count, DataType type, int peer, CudaStream stream) {
        calls.send(where("send"), buf, count, type, peer, stream);
    }

    /** Receives {@code count} elements from {@code peer}. */
    public void recv(DeviceBuffer buf, long count, DataType type, int peer, CudaStream stream) {
        calls.recv(where("recv"), buf, count, type, peer, stream);
    }

    // ---- windows and one-sided operations ------------------------------------------------------------------

    /**
     * Allocates a {@link GpuWindow} of {@code bytes} on every rank, which every rank can write with
     * {@link #putSignal} (NCCL's {@code ncclMemAlloc} + {@code ncclCommWindowRegister}). Collective: every rank
     * calls it with the same size (one thread per rank when they share a process). Across hosts putSignal reaches
     * the other hosts' ranks through the NET transport (at most 16 such windows open), and collectives on the window
     * run the ordinary kernels.
     *
     * @throws JcclException {@link Result#INVALID_ARGUMENT} for sizes below 1 or differing between ranks,
     *                       {@link Result#INVALID_USAGE} when too many windows across hosts are open
     */
    public GpuWindow allocateWindow(long bytes) {
        return calls.allocateWindow(where("allocateWindow"), this, host, bytes);
    }

    /**
     * Makes {@code buffer} (this rank's GPU memory, the same size on every rank) a {@link GpuWindow} every rank can
     * write with {@link #putSignal} (NCCL's {@code ncclCommWindowRegister}). Collective, as
     * {@link #allocateWindow}. With ranks in other processes the buffer must be a whole
     * {@link DeviceBuffer#allocate} allocation (CUDA IPC maps allocations). The buffer stays the caller's: close the
     * window before freeing it.
     */
    public GpuWindow registerWindow(DeviceBuffer buffer) {
        return calls.registerWindow(where("registerWindow"), this, host, buffer);
    }

    /**
     * One-sided put (NCCL's {@code ncclPutSignal}): queues on {@code stream} the copy of {@code bytes} of
     * {@code src} into {@code peer}'s side of {@code window} at {@code offset}, on the copy engines, followed by
     * signal {@code signal} to {@code peer} (a stream memory write; a one-warp kernel once captured), which its
     * {@link #waitSignal} sees only after the data. {@code peer} makes no matching call; it may be this rank. To a
     * rank on another host the proxy thread sends the copy over the NET transport (the stream goes on once the source
     * was read). May be captured in a CUDA graph; eager calls of the same peer and signal must finish before it runs.
     *
     * @throws JcclException {@link Result#INVALID_ARGUMENT} for a range outside the window or a signal outside
     *                       0..{@link GpuWindow#SIGNALS}-1; {@link Result#INVALID_USAGE} inside a group or on a
     *                       closed window
     */
    public void putSignal(GpuWindow window, long offset, DeviceBuffer src, long bytes, int peer, int signal,
                          CudaStream stream) {
        calls.putSignal(where("putSignal"), this, window, offset, src, bytes, peer, signal, stream);
    }

    /**
     * Makes {@code stream} wait until {@code count} more {@link #putSignal}s from {@code peer} with
     * {@code signal} into {@code window} have arrived, with their data (NCCL's {@code ncclWaitSignal}): a stream
     * memory wait (a one-warp kernel once captured) under the communicator's limit (JCCL_TIMEOUT_MS) and abort.
     * May be captured in a CUDA graph: each replay waits for {@code count} more.
     */
    public void waitSignal(GpuWindow window, int peer, int signal, int count, CudaStream stream) {
        calls.waitSignal(where("waitSignal"), this, window, peer, signal, count, stream);
    }

    /** A window released itself. */
    void forget(GpuWindow window) {
        windows.remove(window);
    }

    // ---- groups --------------------------------------------------------------------------------------------

    /** Opens a GPU group on this thread (ncclGroupStart); pair with {@link #groupEnd()}. */
    public static void groupStart() {
        GpuGroups.start();
    }

    /** Closes a GPU group: the outermost end launches the sends and receives recorded since it opened. */
    public static void groupEnd() {
        GpuGroups.end();
    }

    /** A GPU group for try-with-resources: {@code try (GpuGroup g = GpuCommunicator.group()) { send; recv; }}. */
    public static GpuGroup group() {
        return new GpuGroup();
    }

    // ---- control -------------------------------------------------------------------------------------------

    /**
     * The algorithm and grid {@code coll} would use, e.g. "push x16" or "ring x64 chunk 524288 rings 0 2 1 3 | 0 3 1 2"
     * (ring kernels: the ring orders from the topology search that the channels take in turn); "copy" on one rank.
     */
    public String algorithmFor(Collective coll, long count, DataType type, RedOp op) {
        return calls.algorithmFor(coll, count, type, op, null, null, rings);
    }

    /**
     * As {@link #algorithmFor(Collective, long, DataType, RedOp)} for a call on these buffers of this rank ({@code
     * send} is the root's input for broadcast): when both lie in one of its windows (and every rank's lie in theirs),
     * allReduce, reduceScatter, allGather and broadcast may run a symmetric kernel that reads the peers' windows in
     * place, e.g. "sym-twoshot x16" or "sym-pull x8"; under {@link CtaPolicy#ZERO}, allGather, broadcast and
     * allToAll into a window say "ce" (copy engines; outside groups and graph capture, where the kernels run).
     */
    public String algorithmFor(Collective coll, long count, DataType type, RedOp op, DeviceBuffer send,
                               DeviceBuffer recv) {
        return calls.algorithmFor(coll, count, type, op, send, recv, rings);
    }

    /** Loads (JIT-compiles) every kernel calls on {@code type} with {@code op} can use (do it before capturing). */
    public void preload(DataType type, RedOp op) {
        device.makeCurrent();
        enqueuer.kernels().preload(type, switch (op.kind()) {
            case PROD, MIN, MAX -> false;
            default -> true;
        });
    }

    /**
     * Collective over every rank (NCCL's {@code ncclCommSuspend}): waits for this GPU's work, then, once every rank
     * agreed, unmaps the peers' collective memory this rank imported (CUDA IPC) and takes its connectors to other
     * hosts off the proxy thread, waits for every rank to have done so, frees this rank's own (signals, LL and push
     * areas, channel FIFOs: what {@link #memoryStats()} shows as device memory; across hosts also the pinned FIFOs
     * and mirrors, closing their connections), and suspends the host communicator ({@link Communicator#suspend()}).
     * Refused on every rank, with {@link Result#INVALID_USAGE} naming each refusing rank, when any is already
     * suspended, has windows open (close them first: their signals and copies run beside the collective memory), or
     * is inside a GPU group. While suspended every call fails at once with
     * {@link Result#INVALID_USAGE}; {@link #close()} and {@link #abort()} work. A {@link CudaGraph} captured before
     * the suspend holds the old addresses: its launch is refused after the resume; capture it again.
     */
    public void suspend() {
        where("suspend");
        int open = windows.count();
        suspension.suspend(open > 0 ? "has " + open + " window(s) open (close them first)" : null);
    }

    /**
     * Collective over every rank (NCCL's {@code ncclCommResume}): resumes the host communicator, allocates this
     * rank's collective memory again (its counters start at zero on every rank together), exchanges the addresses or
     * CUDA IPC handles, maps the peers' (across hosts: new pinned FIFOs, connected again), and points the kernels at
     * them; the next call works as before. Refused on every rank when any is not suspended.
     */
    public void resume() {
        where("resume");
        suspension.resume().writeTables(args, layout);
    }

    /**
     * The memory this rank holds, by kind (NCCL's {@code ncclCommMemStats}): this GPU communicator's device memory,
     * its CUDA IPC imports of the peers' ({@code peerMappedBytes}), its pinned host memory (FIFOs to ranks of other
     * hosts) and its small host memory, plus its host communicator's ({@link Communicator#memoryStats()}). Local;
     * any thread.
     */
    public MemoryStats memoryStats() {
        return suspension.stats();
    }

    /**
     * Stops this communicator from any thread: running and future kernels stop waiting for peers and return
     * (results are then undefined), every rank's kernels stop too and the other ranks' later calls and
     * {@link #asyncError()} report this abort, the host communicator is aborted, and every later call throws
     * {@link Result#ABORTED}. Close it afterwards. Does nothing once closed.
     */
    public void abort() {
        if (closed) {
            return;   // its memory is gone (and the stopping already happened, or was not needed)
        }
        aborted = true;
        stops.aborted();
        host.abort();
    }

    /**
     * Collective over every rank of this communicator (NCCL's {@code ncclCommSplit}): ranks that pass the same
     * {@code color} form a new GPU communicator on their same GPUs, ranked by {@code key} and then by their rank here;
     * a rank passing {@link Communicator#SPLIT_NOCOLOR} takes part and gets {@code null}. The new communicator is
     * independent of this one (its own collective memory, control area and host communicator; closing either leaves
     * the other working). Its ranks reach each other as one process per GPU does: through CUDA IPC between processes,
     * by address (with peer access) between ranks of one process, such as the ranks of {@link #initAll}, whose
     * threads must then each call it, as the ranks of processes do (it blocks until every rank has called it).
     * Options are this communicator's.
     *
     * @param color the group this rank joins, or {@link Communicator#SPLIT_NOCOLOR}
     * @param key   the order of this rank in its new communicator (ties broken by the rank here)
     * @return the new communicator, or {@code null} for {@link Communicator#SPLIT_NOCOLOR}
     */
    public GpuCommunicator split(int color, int key) {
        where("split");
        Communicator sub = host.split(color, key);
        return sub == null ? null : GpuInit.attach(sub, device, options, sub.config());
    }

    /**
     * Collective over the ranks that stay (NCCL's {@code ncclCommShrink}): every rank not in {@code excludedRanks}
     * calls it with the same set, and they form a new GPU communicator in their old rank order, wired as
     * {@link #split}'s are. It works after a failure, which is what it is for: when a peer process died, this
     * communicator is stopped ({@link #asyncError()} names the lost rank); the survivors call
     * {@code shrink(comm.host().lostRanks())}, continue on the result, and close this one.
     *
     * @param excludedRanks the ranks of this communicator that do not take part
     * @return the new communicator of the remaining ranks
     */
    public GpuCommunicator shrink(int... excludedRanks) {
        if (closed) {
            throw new JcclException(Result.INVALID_USAGE, name + ": shrink on a closed communicator");
        }
        Communicator sub = host.shrink(excludedRanks);
        return GpuInit.attach(sub, device, options, sub.config());
    }

    /**
     * A GPU communicator of {@code newSize} ranks in which this one's ranks keep their ranks and GPUs, and newcomers
     * take ranks {@code size()..newSize-1} with {@link #init(UniqueId, int, int, CudaDevice)} under the same id (NCCL's
     * {@code ncclCommGrow}): collective over this communicator, through {@link Communicator#grow} of its host
     * communicator (rank 0 passes the id it made with {@code Jccl.uniqueId()}, the others {@code null}). This
     * communicator keeps working.
     */
    public GpuCommunicator grow(int newSize, UniqueId id) {
        if (closed) {
            throw new JcclException(Result.INVALID_USAGE, name + ": grow on a closed communicator");
        }
        Communicator bigger = host.grow(newSize, id);
        return GpuInit.attach(bigger, device, options, bigger.config());
    }

    /**
     * {@link #split} of every rank of an {@link #initAll} clique from one thread (as NCCL's users split inside a
     * group):
     * {@code comms.get(i)} splits with {@code colors[i]} and {@code keys[i]}, each on a thread of its own; the result
     * has each rank's new communicator, or {@code null} where the color was {@link Communicator#SPLIT_NOCOLOR}.
     *
     * @throws JcclException the first rank's error (the others' are suppressed in it); the new communicators that
     *                       were made are closed
     */
    public static List<GpuCommunicator> splitAll(List<GpuCommunicator> comms, int[] colors, int[] keys) {
        return GpuInit.splitAll(comms, colors, keys);
    }

    public boolean isAborted() {
        return aborted;
    }

    /**
     * The error that stopped this communicator, or {@code null} while it is healthy (NCCL's
     * {@code ncclCommGetAsyncError}): a rank's call that did not match another rank's ({@link Result#INVALID_USAGE},
     * naming both calls; the rank that made it got the same error from the call); a GPU wait that passed the limit
     * ({@link Result#TIMEOUT}, naming the rank that waited, the peer it waited for, the collective and what was
     * awaited); a rank's {@link #abort()} ({@link Result#ABORTED}, naming it); or the host communicator's error. Every
     * rank reports the same cause (the ranks share control memory: see the module's README for when processes
     * cannot). Check it after synchronising a stream
     * whose results matter: a kernel stopped this way returns, so the stream completes, with undefined results. Once
     * the communicator is stopped, every later call throws.
     *
     * <p>The limit is the host communicator's {@link Config#timeout()} ({@code JCCL_TIMEOUT_MS}, 120 s by default):
     * no GPU kernel of JCCL waits longer than that for a peer.
     */
    public JcclException asyncError() {
        JcclException stop = stops.current();
        return stop != null ? stop : host.asyncError();
    }

    /**
     * Waits for this GPU's work, then releases the communicator: with {@link #initAll}, memory is freed when the last
     * rank closes; with one process per GPU, after every rank reached close (a host barrier). Call {@link #abort()}
     * first if a kernel hangs. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            check.discard();
            enqueuer.close();
            device.synchronize();
        } finally {
            status.release();   // before the shared memory it reads can go
            try {
                if (clique != null) {
                    clique.release();
                } else {
                    // suspended: no kernel of any rank touches the released memory; skip the closing barrier
                    wiring.close(aborted || stops.stopped() || suspension.suspended());
                }
            } finally {
                windows.releaseAll();   // every rank got past the barrier above
                arena.close();
            }
        }
    }

    @Override
    public String toString() {
        return name;
    }

    /** The other ranks' calls in this GPU group differed (JCCL_CHECK_CALLS=1): none of its collectives launches. */
    private void dropDeferred() {
        enqueuer.dropDeferred();
    }

    private String where(String call) {
        return gate.open(call, closed, aborted, stops, suspension);
    }
}
