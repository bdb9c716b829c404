package io.jccl.cuda.internal.comm;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaEvent;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.PinnedBuffer;
import io.jccl.cuda.internal.driver.CuMemory;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.comm.GpuAccess;
import io.jccl.internal.comm.HostCommunicator;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.proxy.ProxyConnection;
import io.jccl.internal.transport.ConnFifo;
import io.jccl.internal.transport.net.GpuNetConnections;
import io.jccl.internal.transport.net.GpuNetConnections.Block;
import io.jccl.internal.transport.net.GpuNetConnections.Link;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.SelectableChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One-sided putSignal into the windows of ranks on other hosts, through the NET transport (NCCL 2.29 carries its
 * host-side ncclPutSignal to other nodes through its proxy as well). A window whose ranks span hosts has, for each
 * rank on another host, a pair of NET links (the same connectors, CRC32C check and failure handling as the GPU
 * channels across hosts: {@link GpuNetConnections}), on a channel of its own counted down from the last, and a
 * <em>pump</em> on the communicator's proxy thread that plays the part a kernel plays for the GPU channels:
 * <ul>
 *   <li><b>put</b> (this rank → peer): the caller's stream runs a one-warp kernel that adds 1 to a request word in
 *   pinned host memory once everything queued before it ran (so the source is written), then a wait kernel that
 *   holds the stream until the pump says the source was read. The pump sees the request word move, copies the
 *   source in slots of {@value #SLOT_BYTES} bytes into the send link's FIFO (a 32-byte header each: the window offset,
 *   the bytes, the signal, last or not) with {@code cuMemcpyAsync} on a stream of its own, and publishes each slot
 *   to the proxy's sender; after the last it advances the done word the stream waits for. Both words keep their
 *   counts on the GPU side, so a captured putSignal replays: each replay is one more request.</li>
 *   <li><b>arrival</b> (peer → this rank): as each slot arrives the pump copies its bytes into this rank's window
 *   at the offset named, and after a put's last slot writes the count of that peer's signal with
 *   {@code cuMemsetD32Async} on the same stream, so a waitSignal never sees the signal before the data; then it
 *   returns the slot to the receiving proxy.</li>
 * </ul>
 * Closing is collective ({@link #quiesce}): every rank waits until its puts have left and every put sent to it has
 * landed, the pumps and links come off the proxy thread on every rank, and only then do the links close.
 *
 * <p>Thread: the window's owner thread (open, {@link #request}, quiesce, close); the pump runs on the proxy thread.
 * Mirrors: the proxy path of NCCL's host-initiated put/signal (ncclPutSignal to a remote rank); our own code.
 */
public final class WindowNet implements AutoCloseable {
    /** Windows across hosts one communicator may hold open at once (each takes a NET channel from the top down). */
    public static final int MAX_WINDOWS = 16;
    /** putSignals to other hosts queued and not yet done, or captured in graphs, on one window at once. */
    public static final int MAX_REQUESTS = 1024;
    /** Bytes of one FIFO slot, header included. */
    static final int SLOT_BYTES = 512 << 10;
    /** The header before each slot's bytes: offset, bytes (longs), signal, last (ints), then padding. */
    static final int HEADER_BYTES = 32;
    private static final int NSTEPS = ConnFifo.NSTEPS;
    /**
     * Per peer, 64-bit words: the own block's tail (slots received) and head (send credits), the mirror's tail (slots
     * published to send) and head (received slots consumed), then the mirror's sizes.
     */
    private static final int RECV_TAIL = 0;
    private static final int SEND_CREDITS = 1;
    private static final int SEND_TAIL = 2;
    private static final int RECV_CONSUMED = 3;
    private static final int SIZES = 4;
    private static final long CTL_BYTES = SIZES * 8 + 8L * NSTEPS;
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final CudaDevice device;
    private final int me;
    private final String name;
    private final CommHealth health;
    /** Ranks on other hosts, and each rank's index among them (-1: this host). */
    private final int[] peers;
    private final int[] indexOf;
    private final long dataAddress;
    private final long dataBytes;
    private final long signalsAddress;
    private final int maxRanks;
    private final int signals;
    private final PinnedBuffer slots;
    private final PinnedBuffer ctl;
    /** The two segments above, addressed by offset on the pump's path (no slice per step). */
    private final MemorySegment slotMemory;
    private final MemorySegment ctlMemory;
    /** Request words [0, MAX_REQUESTS) then done words, 32-bit, mapped into the GPU. */
    private final PinnedBuffer words;
    /** The wait kernels' counters, one 32-bit word per request. */
    private final DeviceBuffer claims;
    private final CudaStream sendStream;
    private final CudaStream recvStream;
    private final CudaEvent[] sendEvents;
    private final CudaEvent[] recvEvents;
    private final Pump pump = new Pump();
    private GpuNetConnections.Apart links;
    private boolean detached;
    private boolean closed;

    /** Requests: written by the owner thread, read by the pump after the GPU moved the request word. */
    private final long[] reqSrc = new long[MAX_REQUESTS];
    private final long[] reqOffset = new long[MAX_REQUESTS];
    private final long[] reqBytes = new long[MAX_REQUESTS];
    private final int[] reqPeer = new int[MAX_REQUESTS];
    private final int[] reqSignal = new int[MAX_REQUESTS];
    /** Owner thread only: requests queued on each word, and whether a graph holds it (never reused). */
    private final int[] enqueued = new int[MAX_REQUESTS];
    private final boolean[] kept = new boolean[MAX_REQUESTS];
    private volatile int requests;

    private WindowNet(CudaDevice device, int me, int n, String name, CommHealth health, int[] peers,
                      DeviceBuffer data, long signalsAddress, int maxRanks, int signals) {
        this.device = device;
        this.me = me;
        this.name = name;
        this.health = health;
        this.peers = peers;
        this.indexOf = new int[n];
        java.util.Arrays.fill(indexOf, -1);
        for (int k = 0; k < peers.length; k++) {
            indexOf[peers[k]] = k;
        }
        this.dataAddress = data.address();
        this.dataBytes = data.sizeBytes();
        this.signalsAddress = signalsAddress;
        this.maxRanks = maxRanks;
        this.signals = signals;
        List<AutoCloseable> made = new ArrayList<>();
        try {
            slots = keep(made, PinnedBuffer.allocate(device, 2L * NSTEPS * SLOT_BYTES * peers.length));
            ctl = keep(made, PinnedBuffer.allocate(device, CTL_BYTES * peers.length));
            ctl.segment().fill((byte) 0);
            words = keep(made, PinnedBuffer.allocate(device, 8L * MAX_REQUESTS));
            words.segment().fill((byte) 0);
            claims = keep(made, DeviceBuffer.allocate(device, 4L * MAX_REQUESTS));
            claims.zero();
            sendStream = keep(made, CudaStream.create(device));
            recvStream = keep(made, CudaStream.create(device));
            slotMemory = slots.segment();
            ctlMemory = ctl.segment();
            sendEvents = new CudaEvent[peers.length];
            recvEvents = new CudaEvent[peers.length];
            for (int k = 0; k < peers.length; k++) {
                sendEvents[k] = keep(made, CudaEvent.create(device, false));
                recvEvents[k] = keep(made, CudaEvent.create(device, false));
            }
        } catch (RuntimeException e) {
            made.forEach(WindowNet::closeQuietly);
            throw e;
        }
        pump.init(peers.length, maxRanks * signals);
    }

    private static <T extends AutoCloseable> T keep(List<AutoCloseable> made, T t) {
        made.add(t);
        return t;
    }

    /**
     * The ranks of {@code host} on another host than this rank, or an empty array when all share its host (or
     * {@code host} is not a communicator of JCCL's with a network).
     */
    public static int[] remoteRanks(Communicator host) {
        if (!(host instanceof HostCommunicator h) || h.gpuAccess() == null) {
            return new int[0];
        }
        int mask = RankAgreement.remoteMask(RankAgreement.hostHashes(h.gpuAccess(), host.size()), host.rank());
        return java.util.stream.IntStream.range(0, host.size()).filter(r -> (mask >>> r & 1) != 0).toArray();
    }

    /**
     * Connects this rank's window to {@code peers} (the ranks on other hosts) on NET channel
     * {@code MAX_CHANNELS - 1 - slot}; collective over the ranks of {@code host} that span hosts (each connects its
     * own peers on other hosts). {@code data}: this rank's window memory, the puts' destination;
     * {@code signalsAddress}: its signal words, word (s, r) at {@code (s * maxRanks + r) * 4}. On failure the
     * communicator fails (so the peers stop waiting) and nothing stays allocated here.
     */
    public static WindowNet open(Communicator host, CudaDevice device, int[] peers, int slot, DeviceBuffer data,
                                 long signalsAddress, int maxRanks, int signals, String where) {
        if (slot < 0 || slot >= MAX_WINDOWS) {
            throw new JcclException(Result.INVALID_USAGE, where + ": at most " + MAX_WINDOWS + " windows whose ranks "
                    + "span hosts may be open at once");
        }
        GpuAccess access = ((HostCommunicator) host).gpuAccess();
        int me = host.rank();
        WindowNet w = new WindowNet(device, me, host.size(), "rank " + me + " window", access.health(), peers, data,
                signalsAddress, maxRanks, signals);
        int channel = GpuNetConnections.MAX_CHANNELS - 1 - slot;
        try {
            List<Link> links = new ArrayList<>(2 * peers.length);
            for (int k = 0; k < peers.length; k++) {
                Block own = new Block(w.recvSlots(k), w.ctlWord(k, RECV_TAIL), null, w.ctlWord(k, SEND_CREDITS));
                Block mirror = new Block(w.sendSlots(k), w.ctlWord(k, SEND_TAIL), w.sizes(k),
                        w.ctlWord(k, RECV_CONSUMED));
                links.add(new Link(peers[k], channel, false, SLOT_BYTES, own, mirror));
                links.add(new Link(peers[k], channel, true, SLOT_BYTES, own, mirror));
            }
            w.links = access.net().connectApart(links);
            w.links.addPump(w.pump);
        } catch (RuntimeException e) {
            if (w.links != null) {
                w.links.detach(TimeUnit.SECONDS.toNanos(5));
                w.links.close();
                w.links = null;
            }
            w.free();
            throw e;
        }
        Log.info(Subsys.INIT, me, "%s: putSignal to rank(s) %s on other hosts through %s, channel %d, %d slots of "
                        + "%d KiB each way", where, java.util.Arrays.toString(peers), access.net().name(), channel,
                NSTEPS, SLOT_BYTES >> 10);
        return w;
    }

    /** True when {@code rank} runs on another host (its putSignals go through here). */
    public boolean remote(int rank) {
        return indexOf[rank] >= 0;
    }

    /**
     * Takes a request word for a putSignal of {@code bytes} at {@code src} into {@code peer}'s window at
     * {@code offset} with {@code signal}, and returns its index: the caller queues {@link #requestWord}'s signal and
     * the wait on {@link #doneWord} / {@link #claimWord}. {@code captured}: the put goes into a CUDA graph, whose
     * replays repeat it, so its word is never given to another put.
     *
     * @throws JcclException {@link Result#INVALID_USAGE} when {@link #MAX_REQUESTS} are in use
     */
    public int request(int peer, long src, long offset, long bytes, int signal, boolean captured, String where) {
        int n = requests;
        int i = -1;
        for (int j = 0; j < n && !captured; j++) {
            if (!kept[j] && (int) INT.getAcquire(words.segment(), 4L * (MAX_REQUESTS + j)) == enqueued[j]) {
                i = j;
                break;
            }
        }
        if (i < 0) {
            if (n == MAX_REQUESTS) {
                throw new JcclException(Result.INVALID_USAGE, where + ": " + MAX_REQUESTS + " putSignals to other "
                        + "hosts are queued or captured on this window already (synchronize the streams, or capture "
                        + "fewer)");
            }
            i = n;
        }
        reqSrc[i] = src;
        reqOffset[i] = offset;
        reqBytes[i] = bytes;
        reqPeer[i] = peer;
        reqSignal[i] = signal;
        kept[i] = captured;
        enqueued[i]++;
        requests = Math.max(n, i + 1);   // volatile: publishes the request to the pump
        return i;
    }

    /** The GPU address of request {@code i}'s word, which the stream's signal kernel adds 1 to. */
    public long requestWord(int i) {
        return words.devicePointer() + 4L * i;
    }

    /** The GPU address of request {@code i}'s done word, which the pump advances once the source was read. */
    public long doneWord(int i) {
        return words.devicePointer() + 4L * (MAX_REQUESTS + i);
    }

    /** The GPU address of the wait kernel's counter for request {@code i}. */
    public long claimWord(int i) {
        return claims.address() + 4L * i;
    }

    /**
     * Collective close, first half: waits until every putSignal this rank queued has left and every one sent to it
     * has landed in its window (at most {@code timeoutMs}, with a line every 5 s), then takes the links and the pump
     * off the proxy thread on every rank. The window's other ranks call it at the same time.
     *
     * @throws JcclException {@link Result#TIMEOUT} naming the peer whose puts did not leave or land in time
     */
    public void quiesce(Communicator host, long timeoutMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        waitUntil(deadline, k -> sentAll(k), "its putSignals to rank %d had not all left");
        int n = host.size();
        long[] sent = new long[n];
        for (int k = 0; k < peers.length; k++) {
            sent[peers[k]] = ctlGet(k, SEND_TAIL);
        }
        long[] all = allGather(host, sent);
        waitUntil(deadline, k -> ctlGet(k, RECV_CONSUMED) >= all[peers[k] * n + me],
                "the putSignals of rank %d had not all landed in its window");
        detached = links.detach(TimeUnit.MILLISECONDS.toNanos(Math.max(1, timeoutMs)));
    }

    /** True when every request to peer index {@code k} was handled and the proxy sent every slot. */
    private boolean sentAll(int k) {
        int n = requests;
        for (int i = 0; i < n; i++) {
            if (reqPeer[i] == peers[k] && (int) INT.getAcquire(words.segment(), 4L * i)
                    != (int) INT.getAcquire(words.segment(), 4L * (MAX_REQUESTS + i))) {
                return false;
            }
        }
        return ctlGet(k, SEND_TAIL) == ctlGet(k, SEND_CREDITS);
    }

    private void waitUntil(long deadlineNs, java.util.function.IntPredicate done, String what) {
        long nextLine = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (int k = 0; k < peers.length; k++) {
            while (!done.test(k)) {
                if (health.isBroken()) {
                    return;   // the communicator failed: nothing more will move, close releases
                }
                long now = System.nanoTime();
                if (now - deadlineNs > 0) {
                    throw new JcclException(Result.TIMEOUT, name + ": closing a window: " + what.formatted(peers[k])
                            + " at the communicator's limit (JCCL_TIMEOUT_MS)");
                }
                if (now - nextLine > 0) {
                    Log.warn(me, "%s: closing a window waits: %s yet", name, what.formatted(peers[k]));
                    nextLine = now + TimeUnit.SECONDS.toNanos(5);
                }
                java.util.concurrent.locks.LockSupport.parkNanos(200_000);
            }
        }
    }

    private static long[] allGather(Communicator host, long[] mine) {
        int n = host.size();
        try (Arena a = Arena.ofShared()) {   // the host channel threads read and write these
            MemorySegment send = a.allocate(8L * n);
            MemorySegment recv = a.allocate(8L * n * n);
            MemorySegment.copy(mine, 0, send, ValueLayout.JAVA_LONG, 0, n);
            host.allGather(send, recv, n, DataType.INT64);
            return recv.toArray(ValueLayout.JAVA_LONG);
        }
    }

    /**
     * Releases this rank's side: the links and the pump come off the proxy thread (when {@link #quiesce} did not
     * already; at once when the communicator's close stopped it), the connections close and the memory is freed.
     * When the proxy thread did not let go in time the links stay open and the memory allocated, with a warning,
     * since the pump might still touch it.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!detached) {
            detached = links.detach(TimeUnit.SECONDS.toNanos(5));
        }
        if (!detached) {
            Log.warn(me, "%s: the proxy thread did not let go of a window's links in time; they stay open and their "
                    + "memory allocated until it ends", name);
            return;
        }
        links.close();
        free();
    }

    private void free() {
        for (CudaEvent e : sendEvents) {
            closeQuietly(e);
        }
        for (CudaEvent e : recvEvents) {
            closeQuietly(e);
        }
        closeQuietly(sendStream);
        closeQuietly(recvStream);
        closeQuietly(claims);
        closeQuietly(words);
        closeQuietly(ctl);
        closeQuietly(slots);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (Exception ignored) {
            // released on a best-effort basis: the rest must still go
        }
    }

    private MemorySegment recvSlots(int k) {
        return slotMemory.asSlice(slotOffset(k, 0, false), (long) NSTEPS * SLOT_BYTES);
    }

    private MemorySegment sendSlots(int k) {
        return slotMemory.asSlice(slotOffset(k, 0, true), (long) NSTEPS * SLOT_BYTES);
    }

    /** Offset of byte 0 of peer index k's slot of {@code step}, receiving or sending, in the slot memory. */
    private static long slotOffset(int k, long step, boolean send) {
        return ((2L * k + (send ? 1 : 0)) * NSTEPS + (step & (NSTEPS - 1))) * SLOT_BYTES;
    }

    /** Word {@code w} of peer index k's control ({@link #RECV_TAIL} .. {@link #RECV_CONSUMED}), for the links. */
    private MemorySegment ctlWord(int k, int w) {
        return ctlMemory.asSlice(ctlOffset(k, w), 8);
    }

    private static long ctlOffset(int k, int w) {
        return k * CTL_BYTES + 8L * w;
    }

    /** Word {@code w} of peer index k's control, with acquire. */
    private long ctlGet(int k, int w) {
        return (long) LONG.getAcquire(ctlMemory, ctlOffset(k, w));
    }

    private MemorySegment sizes(int k) {
        return ctlMemory.asSlice(ctlOffset(k, SIZES), 8L * NSTEPS);
    }

    /**
     * The pump: on the proxy thread, moves requests into the send links' slots and arrived slots into the window.
     * Allocates nothing per step.
     */
    private final class Pump implements ProxyConnection {
        private int[] job;
        private long[] jobDone;
        private long[] chunk;
        private boolean[] sending;
        private boolean[] landing;
        private int[] handled;
        /** Per (peer index, signal word): the count this rank's waits see, written with cuMemsetD32Async. */
        private int[][] counts;
        private final SelectableChannel[] none = new SelectableChannel[0];

        void init(int nPeers, int signalWords) {
            job = new int[nPeers];
            java.util.Arrays.fill(job, -1);
            jobDone = new long[nPeers];
            chunk = new long[nPeers];
            sending = new boolean[nPeers];
            landing = new boolean[nPeers];
            handled = new int[MAX_REQUESTS];
            counts = new int[nPeers][signalWords];
        }

        @Override
        public boolean progress() {
            boolean moved = false;
            for (int k = 0; k < peers.length; k++) {
                moved |= send(k);
                moved |= land(k);
            }
            return moved;
        }

        private boolean send(int k) {
            long step = (long) LONG.get(ctlMemory, ctlOffset(k, SEND_TAIL));
            if (sending[k]) {
                if (!sendEvents[k].isDone()) {
                    return false;
                }
                sending[k] = false;
                publish(k, step);
                return true;
            }
            if (job[k] < 0) {
                job[k] = next(peers[k]);
                if (job[k] < 0) {
                    return false;
                }
                jobDone[k] = 0;
            }
            if (step - ctlGet(k, SEND_CREDITS) >= NSTEPS) {
                return false;   // every slot still on its way
            }
            int i = job[k];
            long left = reqBytes[i] - jobDone[k];
            long n = Math.min(left, SLOT_BYTES - HEADER_BYTES);
            long at = slotOffset(k, step, true);
            slotMemory.set(ValueLayout.JAVA_LONG, at, reqOffset[i] + jobDone[k]);
            slotMemory.set(ValueLayout.JAVA_LONG, at + 8, n);
            slotMemory.set(ValueLayout.JAVA_INT, at + 16, reqSignal[i]);
            slotMemory.set(ValueLayout.JAVA_INT, at + 20, n == left ? 1 : 0);
            chunk[k] = n;
            if (n > 0) {
                device.makeCurrent();
                CuMemory.copyAsync(slots.devicePointer() + at + HEADER_BYTES, reqSrc[i] + jobDone[k], n,
                        sendStream.handle());
                sendEvents[k].record(sendStream);
                sending[k] = true;
            } else {
                publish(k, step);
            }
            return true;
        }

        /** The slot of {@code step} holds its bytes: the proxy's sender may take it; a finished put is done. */
        private void publish(int k, long step) {
            ctlMemory.set(ValueLayout.JAVA_LONG, ctlOffset(k, SIZES) + 8L * (step & (NSTEPS - 1)),
                    HEADER_BYTES + chunk[k]);
            LONG.setRelease(ctlMemory, ctlOffset(k, SEND_TAIL), step + 1);
            int i = job[k];
            jobDone[k] += chunk[k];
            if (jobDone[k] == reqBytes[i]) {
                handled[i]++;
                INT.setRelease(words.segment(), 4L * (MAX_REQUESTS + i), handled[i]);
                job[k] = -1;
            }
        }

        /** A request to {@code peer} whose word moved past what was handled, or -1. */
        private int next(int peer) {
            int n = requests;   // volatile: the requests' fields as the owner thread wrote them
            for (int i = 0; i < n; i++) {
                if (reqPeer[i] == peer && (int) INT.getAcquire(words.segment(), 4L * i) != handled[i]) {
                    return i;
                }
            }
            return -1;
        }

        private boolean land(int k) {
            long step = (long) LONG.get(ctlMemory, ctlOffset(k, RECV_CONSUMED));
            if (landing[k]) {
                if (!recvEvents[k].isDone()) {
                    return false;
                }
                landing[k] = false;
                LONG.setRelease(ctlMemory, ctlOffset(k, RECV_CONSUMED), step + 1);   // back to the receiving proxy
                return true;
            }
            if (ctlGet(k, RECV_TAIL) <= step) {
                return false;
            }
            long at = slotOffset(k, step, false);
            long offset = slotMemory.get(ValueLayout.JAVA_LONG, at);
            long n = slotMemory.get(ValueLayout.JAVA_LONG, at + 8);
            int signal = slotMemory.get(ValueLayout.JAVA_INT, at + 16);
            boolean last = slotMemory.get(ValueLayout.JAVA_INT, at + 20) != 0;
            int from = peers[k];
            if (n < 0 || n > SLOT_BYTES - HEADER_BYTES || offset < 0 || offset > dataBytes - n || signal < 0
                    || signal >= signals) {
                throw new JcclException(Result.REMOTE_ERROR, name + ": a putSignal from rank " + from + " names "
                        + n + " bytes at offset " + offset + " and signal " + signal + ", outside this window of "
                        + dataBytes + " bytes and " + signals + " signals (do the ranks' windows differ?)");
            }
            device.makeCurrent();
            if (n > 0) {
                CuMemory.copyAsync(dataAddress + offset, slots.devicePointer() + at + HEADER_BYTES, n,
                        recvStream.handle());
            }
            if (last) {
                int w = signal * maxRanks + from;
                CuMemory.memsetD32Async(signalsAddress + 4L * w, ++counts[k][w], 1, recvStream.handle());
            }
            recvEvents[k].record(recvStream);
            landing[k] = true;
            return true;
        }

        @Override
        public SelectableChannel[] channels() {
            return none;
        }

        @Override
        public int sleepInterest(int i) {
            return 0;
        }

        @Override
        public boolean canSleep() {
            return false;   // the GPU moves the request words: nothing wakes a selector
        }

        @Override
        public void close() {
            // the memory is the window's, freed by WindowNet.close once the proxy let go
        }
    }
}
