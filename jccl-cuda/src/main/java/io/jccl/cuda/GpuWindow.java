package io.jccl.cuda;

import io.jccl.Communicator;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.comm.GpuStops;
import io.jccl.cuda.internal.comm.StreamWaits;
import io.jccl.cuda.internal.comm.WindowNet;
import io.jccl.cuda.internal.driver.CuBatchCopies;
import io.jccl.cuda.internal.driver.CuMemory;
import io.jccl.cuda.internal.driver.CuStreams;
import io.jccl.cuda.internal.enqueue.Enqueuer;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * A window: GPU memory of the same size on every rank of a {@link GpuCommunicator} that every rank of the host can
 * write directly (NCCL's {@code ncclCommWindowRegister} / {@code ncclMemAlloc}), with {@link #SIGNALS} signal words
 * per peer for one-sided {@link GpuCommunicator#putSignal} / {@link GpuCommunicator#waitSignal} (NCCL's
 * {@code ncclPutSignal} / {@code ncclWaitSignal}). Made collectively by {@link GpuCommunicator#allocateWindow} or
 * {@link GpuCommunicator#registerWindow} and released collectively by {@link #close()}, which is refused while a
 * putSignal or waitSignal on it may still run.
 *
 * <p>Each rank's window is its data memory and a small signal area of 32-bit words zeroed at creation: word (s, r)
 * counts the putSignals of rank r with signal s into this rank, and a counter beside it how many of them this rank's
 * waits have claimed. Ranks of this process reach each other's windows by address (peer access), ranks of other
 * processes of the host through CUDA IPC mappings made here, and ranks on other hosts through the NET transport
 * ({@link WindowNet}: a putSignal to them is a request the communicator's proxy thread carries, the signal written
 * after the data on the receiving side).
 * A putSignal copies on the copy engines ({@code cuMemcpyAsync} into the peer's mapped window) and then writes the
 * pair's next count into the peer's word with a stream memory write queued behind the copy (with its memory barrier,
 * so a peer never sees the signal before the data); a waitSignal is a stream memory wait for the count, kept under
 * the communicator's limit and stop like every other GPU wait. Neither occupies a multiprocessor
 * ({@link HostCountedSignals}: the counts are kept here). Captured in a CUDA graph, whose replays repeat the same
 * writes, they count on the GPU instead: a one-warp kernel adds 1 to the word (a release add at system scope) and a
 * one-warp kernel advances the counter by the count and polls the word; from its first capture on, a pair (peer,
 * signal) keeps counting so. With {@code -Djccl.cuda.copyEngineWaits=kernel} every call uses the kernels. The
 * copy-engine collectives signal with stream writes of counts kept here too, and so run eagerly only.
 *
 * <p>Thread: the thread that issues the communicator's calls. Mirrors NCCL's symmetric window registration
 * (ncclDevrWindow) and its host-side one-sided operations (NCCL 2.29), our own code.
 */
public final class GpuWindow implements AutoCloseable {
    /** Signal words per peer (signal ids 0..SIGNALS-1). */
    public static final int SIGNALS = 16;
    /** The rows after the users' signals that the copy-engine collectives use: ready to be written, data written. */
    private static final int READY = SIGNALS;
    private static final int DATA = SIGNALS + 1;
    /** Then one row of counters per signal: how many of each peer's signals this rank's waits have claimed. */
    private static final int AWAITED = SIGNALS + 2;
    private static final int MAX_RANKS = 8;
    private static final long SIGNAL_BYTES = (long) (2 * SIGNALS + 2) * MAX_RANKS * 4;
    /** Copy-engine collectives and eager one-sided calls wait with stream memory operations, unless told not to. */
    private static final boolean STREAM_WAITS = "stream".equals(
            io.jccl.internal.param.InternalProperties.CUDA_COPY_ENGINE_WAITS.get());

    private final GpuCommunicator comm;
    private final DeviceBuffer data;
    private final boolean ownsData;
    private final DeviceBuffer signals;
    /** Every rank's data and signal area as this rank's GPU addresses them. */
    private final long[] peerData;
    private long symmetricCalls;
    private final long[] peerSignals;
    private final List<DeviceBuffer> mappings;
    /** The copy-engine collectives' signals sent to [peer][row - READY] and awaited from [peer][row - READY]. */
    private final int[][] sent;
    private final int[][] awaited;
    /** The last putSignal/waitSignal queued on each stream. */
    private final Map<CudaStream, CudaEvent> uses = new IdentityHashMap<>();
    /** The waits of one copy-engine step (reused: a collective allocates nothing). */
    private final int[] waitPeers;
    private final long[] waitWords;
    private final int[] waitCounts;
    /** The communicator's stops and limit, which the stream waits keep. */
    private final GpuStops stops;
    /** The copy-engine collectives' and eager one-sided waits as stream memory operations, made at the first one. */
    private StreamWaits streamWaits;
    /** The eager one-sided signals' counts, kept here so that they need no kernel. */
    private final HostCountedSignals hostCounts;
    private long copyEngineCalls;
    private long batchCopies;
    /** The puts to ranks on other hosts, or null when every rank shares this host. */
    private WindowNet net;
    /** Which of the communicator's window NET channels this window holds (-1: none). */
    private final int netSlot;
    private boolean closed;

    private GpuWindow(GpuCommunicator comm, DeviceBuffer data, boolean ownsData, DeviceBuffer signals,
                      long[] peerData, long[] peerSignals, List<DeviceBuffer> mappings, int netSlot, GpuStops stops) {
        this.comm = comm;
        this.stops = stops;
        this.data = data;
        this.ownsData = ownsData;
        this.signals = signals;
        this.peerData = peerData;
        this.peerSignals = peerSignals;
        this.mappings = mappings;
        this.netSlot = netSlot;
        int n = peerData.length;
        this.sent = new int[n][2];
        this.awaited = new int[n][2];
        this.waitPeers = new int[n];
        this.waitWords = new long[n];
        this.waitCounts = new int[n];
        this.hostCounts = new HostCountedSignals(comm.device(), n, SIGNALS, STREAM_WAITS, this::streamWaits);
    }

    /**
     * Makes the window of {@code data} on every rank; collective over {@code host} (the communicator's host
     * communicator: every rank calls it, one thread per rank). On failure every rank throws and nothing stays
     * allocated or mapped; {@code data} is freed then only when {@code ownsData}. When the ranks span hosts,
     * {@code netSlot} names the communicator's window NET channel this window takes (the same on every rank).
     */
    static GpuWindow open(GpuCommunicator comm, Communicator host, DeviceBuffer data, boolean ownsData, int netSlot,
                          GpuStops stops, String where) {
        int me = host.rank();
        int n = host.size();
        int[] remote = WindowNet.remoteRanks(host);
        CudaDevice device = comm.device();
        DeviceBuffer signals = null;
        List<DeviceBuffer> mappings = new ArrayList<>();
        try {
            signals = DeviceBuffer.allocate(device, SIGNAL_BYTES);
            signals.zero();
            byte[] dataHandle = new byte[64];
            boolean exportable = true;
            try {
                dataHandle = data.exportIpcHandle();
            } catch (JcclException e) {
                exportable = false;   // a slice or wrapped memory: reachable by ranks of this process only
            }
            byte[] all = WindowHandshake.exchange(host, me, n, data, exportable, signals, dataHandle);
            long pid = ProcessHandle.current().pid();
            long[] peerData = new long[n];
            long[] peerSignals = new long[n];
            String problem = WindowHandshake.check(all, n, data.sizeBytes());
            if (problem != null) {   // the same answer on every rank: all throw here
                throw new JcclException(Result.INVALID_USAGE, where + ": " + problem);
            }
            RuntimeException failure = null;
            try {
                for (int r = 0; r < n; r++) {
                    MemorySegment info = MemorySegment.ofArray(all).asSlice((long) r * WindowHandshake.INFO_BYTES,
                            WindowHandshake.INFO_BYTES);
                    if (java.util.Arrays.binarySearch(remote, r) >= 0) {
                        continue;   // on another host: reached through WindowNet, never mapped
                    }
                    if (r == me || info.get(JAVA_LONG_UNALIGNED, 0) == pid) {
                        peerData[r] = info.get(JAVA_LONG_UNALIGNED, 8);
                        peerSignals[r] = info.get(JAVA_LONG_UNALIGNED, 32);
                    } else {
                        peerData[r] = WindowHandshake.map(device, info, 40, data.sizeBytes(), mappings);
                        peerSignals[r] = WindowHandshake.map(device, info, 104, SIGNAL_BYTES, mappings);
                    }
                }
            } catch (RuntimeException e) {
                failure = e;
            }
            try {
                WindowHandshake.agree(host, me, n, failure == null, where);
            } catch (JcclException e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                    throw failure;
                }
                throw e;
            }
            GpuWindow w = new GpuWindow(comm, data, ownsData, signals, peerData, peerSignals, mappings,
                    remote.length > 0 ? netSlot : -1, stops);
            if (remote.length > 0) {
                w.net = WindowNet.open(host, device, remote, netSlot, data, signals.address(), MAX_RANKS, SIGNALS,
                        where);
            }
            return w;
        } catch (RuntimeException e) {
            mappings.forEach(GpuWindow::closeQuietly);
            if (signals != null) {
                closeQuietly(signals);
            }
            if (ownsData) {
                closeQuietly(data);
            }
            throw e;
        }
    }

    /** True when some of the window's ranks run on other hosts: putSignal only, no symmetric or copy-engine call. */
    boolean spansHosts() {
        return netSlot >= 0;
    }

    /** The communicator's window NET channel this window holds, or -1 when its ranks share one host. */
    int netSlot() {
        return netSlot;
    }

    /** Refuses a one-sided call of {@code comm} on {@code window}: none given, another's, or inside a group. */
    static void requireUsable(String where, GpuWindow window, GpuCommunicator comm) {
        if (window == null) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": no window given");
        }
        if (window.comm != comm) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": the window belongs to " + window.comm);
        }
        if (io.jccl.cuda.internal.enqueue.GpuGroups.inGroup()) {
            throw new JcclException(Result.INVALID_USAGE, where + ": one-sided operations run at once and cannot be "
                    + "part of a group (end the group first)");
        }
    }

    /** This rank's memory of the window (the registered buffer, or the allocated one). */
    public DeviceBuffer buffer() {
        return data;
    }

    /** Bytes of the window on every rank. */
    public long sizeBytes() {
        return data.sizeBytes();
    }

    /** The communicator the window belongs to. */
    public GpuCommunicator communicator() {
        return comm;
    }

    /**
     * Queues the copy of {@code bytes} of {@code src} into {@code peer}'s window at {@code offset}, then the signal.
     */
    void put(long offset, DeviceBuffer src, long bytes, int peer, int signal, CudaStream stream, Enqueuer q,
             String where) {
        checkOpen(where);
        checkSignal(where, signal);
        if (offset < 0 || bytes < 0 || offset > sizeBytes() - bytes) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": " + bytes + " bytes at offset " + offset
                    + " do not fit the window of " + sizeBytes() + " bytes");
        }
        comm.device().makeCurrent();
        if (net != null && net.remote(peer)) {   // the proxy copies and sends once the stream reaches the request
            int i = net.request(peer, src.address(), offset, bytes, signal, stream.isCapturing(), where);
            q.signal(peer, net.requestWord(i), 1, stream);
            q.waitSignal(peer, net.doneWord(i), net.claimWord(i), 1, stream);
            used(stream);
            return;
        }
        boolean capturing = stream.isCapturing();
        if (bytes > 0 && CuBatchCopies.copy(peerData[peer] + offset, src.address(), bytes, stream.handle(),
                capturing)) {
            batchCopies++;
        }
        long word = peerSignals[peer] + word(signal, comm.rank());
        if (!hostCounts.signal(peer, signal, word, stream, capturing)) {
            q.signal(peer, word, 1, stream);
        }
        used(stream, capturing);
    }

    /** Queues the wait until {@code count} more putSignals of {@code peer} with {@code signal} have arrived. */
    void await(int peer, int signal, int count, CudaStream stream, Enqueuer enqueuer, String where) {
        checkOpen(where);
        checkSignal(where, signal);
        if (count < 1) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": count must be at least 1, got " + count);
        }
        boolean capturing = stream.isCapturing();
        long word = signals.address() + word(signal, peer);
        long counter = signals.address() + word(AWAITED + signal, peer);
        if (!hostCounts.await(peer, signal, count, word, counter, stream, capturing)) {
            enqueuer.waitSignal(peer, word, counter, count, stream);
        }
        used(stream, capturing);
    }

    /**
     * The offset in this window of {@code bytes} of this rank's memory at {@code address}, or -1 when they do not lie
     * in it (or it is closed).
     */
    long offsetOf(long address, long bytes) {
        long off = address - data.address();
        return !closed && off >= 0 && bytes <= sizeBytes() - off ? off : -1;
    }

    /**
     * Every rank's window as this GPU addresses it ({@code [rank()]} is this rank's own): the table the symmetric
     * kernels read the peers' buffers through. The window's own array: not to be modified.
     */
    long[] kernelBases() {
        return peerData;
    }

    /**
     * A collective with its buffers in this window was queued on {@code stream}: {@link #close()} is refused until it
     * ends.
     */
    void symmetricCall(CudaStream stream) {
        used(stream);
        symmetricCalls++;
    }

    /** Collectives with every buffer in this window (for tests). */
    long symmetricCalls() {
        return symmetricCalls;
    }

    /** Copies queued as batches preferring the copy engines ({@link CuBatchCopies}; for tests). */
    long batchCopies() {
        return batchCopies;
    }

    /** putSignals and waitSignals queued as stream memory operations, no kernel (for tests). */
    long streamSignalCalls() {
        return hostCounts.calls();
    }

    /** Collectives this window's copy engines ran (for tests). */
    long copyEngineCalls() {
        return copyEngineCalls;
    }

    /**
     * Copy-engine allGather into this window at {@code off} (the same offset on every rank): after a barrier (every
     * rank's stream has reached the call, so the previous results were consumed), each rank copies its
     * {@code bytes} from {@code send} into block {@code rank} of every peer's window and signals it, then waits for
     * every peer's block. No kernel moves data; the waits are one-warp blocks.
     */
    void copyEngineAllGather(long off, long send, long bytes, CudaStream s, Enqueuer q) {
        barrier(s, q, "copy-engine allGather (every rank ready)");
        spread(off + comm.rank() * bytes, send, 0, bytes, s);
        awaitRow(DATA, -1, s, q, "copy-engine allGather (every rank's block)");
        copyEngineCalls++;
    }

    /** Copy-engine broadcast of {@code root}'s {@code bytes} at {@code send} into every window at {@code off}. */
    void copyEngineBroadcast(long off, long send, long bytes, int root, CudaStream s, Enqueuer q) {
        barrier(s, q, "copy-engine broadcast (every rank ready)");
        if (comm.rank() == root) {
            spread(off, send, 0, bytes, s);
        } else {
            awaitRow(DATA, root, s, q, "copy-engine broadcast (the root's data)");
        }
        copyEngineCalls++;
    }

    /**
     * Copy-engine allToAll: block p of {@code send} ({@code bytes} each) goes to block {@code rank} of peer p's
     * window at {@code off}. {@code send} must not overlap the receive blocks (the peers write them meanwhile).
     */
    void copyEngineAllToAll(long off, long send, long bytes, CudaStream s, Enqueuer q) {
        barrier(s, q, "copy-engine allToAll (every rank ready)");
        spread(off + comm.rank() * bytes, send, bytes, bytes, s);
        awaitRow(DATA, -1, s, q, "copy-engine allToAll (every rank's block)");
        copyEngineCalls++;
    }

    /**
     * Copies {@code bytes} from {@code send + p * srcStride} to offset {@code dstOff} of every rank p's window, each
     * peer's copy followed by its data signal (this rank's own copy needs none, and none at all when in place).
     */
    private void spread(long dstOff, long send, long srcStride, long bytes, CudaStream s) {
        int me = comm.rank();
        for (int p = 0; p < peerData.length; p++) {
            if (p != me) {
                copy(peerData[p] + dstOff, send + p * srcStride, bytes, s);
                signal(p, DATA, s);
            }
        }
        long dst = data.address() + dstOff;
        long src = send + me * srcStride;
        if (dst != src) {
            copy(dst, src, bytes, s);
        }
    }

    /** A copy-engine collective's copy (never captured), on the copy engines where the driver can be asked to. */
    private void copy(long dst, long src, long bytes, CudaStream s) {
        if (CuBatchCopies.copy(dst, src, bytes, s.handle(), false)) {
            batchCopies++;
        }
    }

    /** Every rank tells every peer its stream reached the call, and waits until every peer's did. */
    private void barrier(CudaStream s, Enqueuer q, String what) {
        int me = comm.rank();
        for (int p = 0; p < peerData.length; p++) {
            if (p != me) {
                signal(p, READY, s);
            }
        }
        awaitRow(READY, -1, s, q, what);
    }

    /** Writes the next count of {@code row} into peer {@code p}'s word once the stream's work before is done. */
    private void signal(int p, int row, CudaStream s) {
        long word = peerSignals[p] + word(row, comm.rank());
        int count = ++sent[p][row - READY];
        if (STREAM_WAITS) {
            CuStreams.writeValue32(s.handle(), word, count);
        } else {
            CuMemory.memsetD32Async(word, count, 1, s.handle());
        }
    }

    /**
     * The wait for the next signal of {@code row} from {@code from} (-1: from every peer): stream memory operations
     * ({@link StreamWaits}), or one kernel of one warp per peer with {@code -Djccl.cuda.copyEngineWaits=kernel}.
     */
    private void awaitRow(int row, int from, CudaStream s, Enqueuer q, String what) {
        int me = comm.rank();
        int k = 0;
        for (int p = 0; p < peerData.length; p++) {
            if (p != me && (from < 0 || p == from)) {
                waitPeers[k] = p;
                waitWords[k] = signals.address() + word(row, p);
                waitCounts[k] = ++awaited[p][row - READY];
                k++;
            }
        }
        if (k > 0 && STREAM_WAITS) {
            streamWaits().await(k, waitPeers, waitWords, waitCounts, s, what);
        } else if (k > 0) {
            q.waitSignals(k, waitPeers, waitWords, waitCounts, s);
        }
        used(s);
    }

    /** The window's stream memory waits, made at the first one. */
    private StreamWaits streamWaits() {
        if (streamWaits == null) {
            streamWaits = new StreamWaits(comm.device(), stops, comm.toString());
        }
        return streamWaits;
    }

    private static long word(int signal, int sender) {
        return ((long) signal * MAX_RANKS + sender) * 4;
    }

    private void checkOpen(String where) {
        if (closed) {
            throw new JcclException(Result.INVALID_USAGE, where + ": the window is closed");
        }
    }

    private static void checkSignal(String where, int signal) {
        if (signal < 0 || signal >= SIGNALS) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": signal " + signal + " outside 0.."
                    + (SIGNALS - 1));
        }
    }

    /**
     * Remembers the last call on {@code stream} for {@link #close()} (not under capture: a graph's work is its own).
     */
    private void used(CudaStream stream) {
        used(stream, stream.isCapturing());
    }

    /** As {@link #used(CudaStream)}, told whether the stream captures. */
    private void used(CudaStream stream, boolean capturing) {
        if (capturing) {
            return;
        }
        CudaEvent e = uses.get(stream);
        if (e == null) {
            e = CudaEvent.create(comm.device(), false);
            uses.put(stream, e);
        }
        e.record(stream);
    }

    /** Whether a putSignal, waitSignal or symmetric collective on this window may still run on its stream. */
    boolean busy() {
        for (CudaEvent e : uses.values()) {
            if (!e.isDone()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Releases the window on every rank; collective (every rank calls it). Refused on every rank, with the window
     * still usable, while a putSignal, waitSignal or collective queued on it by any rank has not completed:
     * synchronize the streams first.
     *
     * @throws JcclException {@link Result#INVALID_USAGE} naming the ranks whose calls still run
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        WindowHandshake.agree(comm.host(), comm.rank(), comm.size(), !busy(), comm + ": closing a window (a putSignal,"
                + " waitSignal or collective on it still runs there: synchronize its stream first)");
        if (net != null) {   // every put has left and landed, and no proxy touches the links, before they close
            try {
                JcclException late = null;
                try {
                    net.quiesce(comm.host(), comm.host().config().timeout().toMillis());
                } catch (JcclException e) {
                    late = e;
                }
                try {
                    WindowHandshake.agree(comm.host(), comm.rank(), comm.size(), late == null, comm
                            + ": closing a window (its putSignals across hosts did not all arrive in time)");
                } catch (JcclException refused) {
                    if (late != null) {
                        refused.addSuppressed(late);   // this rank's own wait: what was still in flight
                    }
                    throw refused;
                }
            } finally {
                release();
            }
            return;
        }
        release();
    }

    /** Unmaps and frees this rank's side without asking the others (the communicator is closing). */
    void release() {
        if (closed) {
            return;
        }
        closed = true;
        if (net != null) {
            closeQuietly(net);
        }
        if (streamWaits != null) {
            closeQuietly(streamWaits);
        }
        closeQuietly(hostCounts);
        uses.values().forEach(GpuWindow::closeQuietly);
        uses.clear();
        mappings.forEach(GpuWindow::closeQuietly);
        closeQuietly(signals);
        if (ownsData) {
            closeQuietly(data);
        }
        comm.forget(this);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // released on a best-effort basis: the rest must still go
        }
    }
}
