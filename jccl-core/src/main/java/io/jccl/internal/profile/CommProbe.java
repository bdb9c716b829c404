package io.jccl.internal.profile;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.Profiler;
import io.jccl.RedOp;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.enqueue.GroupLauncher;
import io.jccl.internal.tuning.AlgoKind;
import io.jccl.internal.tuning.HostSelector;
import io.jccl.internal.tuning.Protocol;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * The observability hook of one communicator rank: every call passes {@link #begin} (counts it, names its algorithm,
 * logs it under NCCL_DEBUG_SUBSYS=COLL/TUNING) and then exactly one of {@link #end}, {@link #launched},
 * {@link #recorded} or {@link #failed}. While a JFR recording runs or profiler plugins are present, a {@link Pending}
 * carries the call to its completion: a {@link CollectiveEvent} and the plugins' start/stop. Otherwise nothing is
 * allocated: the counters are primitive arrays and the checks are volatile reads.
 *
 * <p>Owned by: the communicator's calling thread (calls are serialised by the communicator); completions of
 * asynchronous calls run on worker threads. JMX reads the counters from any thread. Mirrors: NCCL's profiler hooks
 * in enqueue.cc (ncclProfilerStartGroupEvent / StartTaskEvents / StopTaskEvents).
 */
public final class CommProbe {

    private final String commId;
    private final String name;
    private final int rank;
    private final int nRanks;
    private final int nNodes;
    private final int nChannels;
    private final Supplier<JcclException> failure;
    private final Supplier<int[]> lostRanks;
    private final CommCounters counters = new CommCounters();
    private final Map<String, Double> phaseMillis = new LinkedHashMap<>();
    private volatile double initMillis;
    private volatile CommJmx jmx;

    private boolean inCall;
    private int cell;
    private long startNs;
    private int[] groupedCells = new int[4];
    private long[] groupedStartNs = new long[4];
    private Pending current;
    private List<Pending> grouped;
    private int groupedSync;

    public CommProbe(String commId, String name, int rank, int nRanks, int nNodes, int nChannels,
                     Supplier<JcclException> failure) {
        this(commId, name, rank, nRanks, nNodes, nChannels, failure, () -> new int[0]);
    }

    /** @param lostRanks the ranks known to be gone, ascending (read by the metrics endpoint) */
    public CommProbe(String commId, String name, int rank, int nRanks, int nNodes, int nChannels,
                     Supplier<JcclException> failure, Supplier<int[]> lostRanks) {
        this.lostRanks = lostRanks;
        this.commId = commId;
        this.name = name == null ? "" : name;
        this.rank = rank;
        this.nRanks = nRanks;
        this.nNodes = nNodes;
        this.nChannels = nChannels;
        this.failure = failure;
    }

    /**
     * A call passed validation and got sequence number {@code seq}; {@code choice} is what it runs (a packed
     * {@link HostSelector} decision).
     */
    public void begin(Collective c, long seq, long count, DataType type, RedOp op, int root, int peer,
                      MemorySegment send, MemorySegment recv, long choice) {
        if (groupedSync != 0 && !io.jccl.internal.enqueue.GroupState.inGroup()) {
            abandonGroup();
        }
        long bytes = count * type.sizeBytes();
        AlgoKind algo = HostSelector.kindOf(choice);
        Protocol protocol = HostSelector.protocolOf(choice);
        int ch = HostSelector.channelsOf(choice);
        cell = counters.add(c, algo, protocol, bytes);
        startNs = System.nanoTime();
        inCall = true;
        if (Log.enabled(Log.Level.INFO, Subsys.COLL) || Log.enabled(Log.Level.INFO, Subsys.TUNING)) {
            logCall(c, seq, count, type, op, root, peer, send, recv, algo, protocol, ch, bytes);
        }
        boolean jfr = JfrGate.on();
        List<Profiler> profilers = Profilers.active();
        if (!jfr && profilers.isEmpty()) {
            current = null;
            return;
        }
        current = new Pending(new Profiler.Operation(commId, rank, nRanks, seq, c, count, type, root, peer,
                algo.name(), protocol.name(), ch, bytes), jfr, profilers);
    }

    /** The call ran to completion on this thread (or threw: {@code error}). */
    public void end(Throwable error) {
        counters.addNanos(cell, System.nanoTime() - startNs);
        Pending p = take();
        if (error != null) {
            counters.failed();
        }
        if (p != null) {
            p.finish(error);
        }
    }

    /** The call was launched outside a group; {@code future} is null for a synchronous call that has completed. */
    public void launched(CompletableFuture<Void> future) {
        if (future == null) {
            end(null);
            return;
        }
        Pending p = take();
        int k = cell;
        long t0 = startNs;
        future.whenComplete((v, e) -> {
            counters.addNanos(k, System.nanoTime() - t0);
            if (e != null) {
                counters.failed();
            }
            if (p != null) {
                p.async = true;
                p.finish(unwrap(e));
            }
        });
    }

    /** The call was recorded in the thread's group; it completes with the group (or with {@code future}). */
    public void recorded(CompletableFuture<Void> future) {
        Pending p = take();
        if (p != null) {
            p.grouped = true;
        }
        if (future != null) {
            int k = cell;
            long t0 = startNs;
            future.whenComplete((v, e) -> {
                counters.addNanos(k, System.nanoTime() - t0);
                if (e != null) {
                    counters.failed();
                }
                if (p != null) {
                    p.async = true;
                    p.finish(unwrap(e));
                }
            });
            return;
        }
        if (groupedSync == groupedCells.length) {
            groupedCells = java.util.Arrays.copyOf(groupedCells, 2 * groupedSync);
            groupedStartNs = java.util.Arrays.copyOf(groupedStartNs, 2 * groupedSync);
        }
        groupedCells[groupedSync] = cell;
        groupedStartNs[groupedSync] = startNs;
        groupedSync++;
        if (p != null) {
            if (grouped == null) {
                grouped = new ArrayList<>();
            }
            grouped.add(p);
        }
    }

    /** The call threw before it completed (validation after {@link #begin}, launch or wait). */
    public void failed(Throwable error) {
        if (inCall) {
            end(error);
        }
    }

    /** Wraps a group's launch on this communicator so that its recorded synchronous calls complete with it. */
    public GroupLauncher.Prepared group(GroupLauncher.Prepared prepared) {
        if (groupedSync == 0) {
            return prepared;
        }
        List<Pending> calls = grouped == null ? List.of() : grouped;
        int n = groupedSync;
        grouped = null;
        groupedSync = 0;
        return new GroupedLaunch(prepared, n, calls, counters, java.util.Arrays.copyOf(groupedCells, n),
                java.util.Arrays.copyOf(groupedStartNs, n));
    }

    /** Calls recorded in a group whose launch never reached this communicator (another one failed first). */
    private void abandonGroup() {
        JcclException e = new JcclException(io.jccl.Result.INVALID_USAGE, "the group these calls were recorded in "
                + "ended without launching them on communicator " + commId + " (another communicator failed first)");
        for (int i = 0; i < groupedSync; i++) {
            counters.failed();
        }
        if (grouped != null) {
            for (Pending p : grouped) {
                p.finish(e);
            }
        }
        grouped = null;
        groupedSync = 0;
    }

    private Pending take() {
        Pending p = current;
        current = null;
        inCall = false;
        return p;
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    private void logCall(Collective c, long seq, long count, DataType type, RedOp op, int root, int peer,
                         MemorySegment send, MemorySegment recv, AlgoKind algo, Protocol protocol, int ch,
                         long bytes) {
        Log.info(Subsys.COLL, rank, "%s: opCount %x sendbuff %s recvbuff %s count %d datatype %s op %s root %d peer %d "
                + "comm %s [nranks=%d]", c.ncclName(), seq, address(send), address(recv), count, type.ncclName(),
                c.reduces() ? op : "none", root, peer, commId, nRanks);
        Log.info(Subsys.TUNING, rank, "%s: %d Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}", c.ncclName(), bytes,
                algo, protocol.name(), 0, Math.max(0, ch - 1));
    }

    private static String address(MemorySegment s) {
        return s == null || s.equals(MemorySegment.NULL) ? "(nil)"
                : s.isNative() ? "0x" + Long.toHexString(s.address()) : "heap[" + s.byteSize() + "]";
    }

    // ---- init and JMX ------------------------------------------------------------------------------------

    /** Records how long creation took, per phase (called once by the initialising thread). */
    public void initDone(long totalNs, Map<String, Long> phaseNs) {
        synchronized (phaseMillis) {
            phaseNs.forEach((k, v) -> phaseMillis.put(k, v / 1e6));
        }
        initMillis = totalNs / 1e6;
    }

    /** Registers this rank's MXBean in the background (unless JCCL_JMX=0). */
    public void registerJmx() {
        jmx = CommJmx.register(this);
        MetricsEndpoint.register(this);
    }

    /** The background JMX registration, or null when JMX is off (tests wait on it). */
    public CommJmx jmx() {
        return jmx;
    }

    /** Unregisters the MXBean (the communicator was destroyed). */
    public void close() {
        MetricsEndpoint.unregister(this);
        CommJmx j = jmx;
        if (j != null) {
            j.unregister();
        }
    }

    public CommCounters counters() {
        return counters;
    }

    public String commId() {
        return commId;
    }

    public String name() {
        return name;
    }

    public int rank() {
        return rank;
    }

    public int nRanks() {
        return nRanks;
    }

    public int nNodes() {
        return nNodes;
    }

    public int nChannels() {
        return nChannels;
    }

    public double initMillis() {
        return initMillis;
    }

    public Map<String, Double> initPhaseMillis() {
        synchronized (phaseMillis) {
            return new LinkedHashMap<>(phaseMillis);
        }
    }

    /** The error that broke the communicator, or null. */
    public JcclException failure() {
        return failure.get();
    }

    /** The ranks known to be gone, ascending. */
    public int[] lostRanks() {
        return lostRanks.get();
    }

    /** One observed call on its way to completion: its JFR event and the plugins' tokens. */
    static final class Pending {
        private final Profiler.Operation op;
        private final CollectiveEvent event;
        private final List<Profiler> profilers;
        private final Object[] tokens;
        private final long startNs;
        boolean grouped;
        boolean async;

        Pending(Profiler.Operation op, boolean jfr, List<Profiler> profilers) {
            this.op = op;
            this.profilers = List.copyOf(profilers);
            this.tokens = new Object[this.profilers.size()];
            CollectiveEvent e = jfr ? new CollectiveEvent() : null;
            if (e != null && e.isEnabled()) {
                e.begin();
                this.event = e;
            } else {
                this.event = null;
            }
            this.startNs = System.nanoTime();
            for (int i = 0; i < tokens.length; i++) {
                Profiler p = this.profilers.get(i);
                try {
                    tokens[i] = p.start(op);
                } catch (RuntimeException ex) {
                    Profilers.failed(p, "start", ex);
                }
            }
        }

        void finish(Throwable error) {
            long durationNs = System.nanoTime() - startNs;
            for (int i = 0; i < tokens.length; i++) {
                Profiler p = profilers.get(i);
                try {
                    p.stop(tokens[i], op, durationNs, error);
                } catch (RuntimeException ex) {
                    Profilers.failed(p, "stop", ex);
                }
            }
            CollectiveEvent e = event;
            if (e != null && e.shouldCommit()) {
                e.place(op.commId(), op.rank(), op.nRanks());
                e.seq = op.seq();
                e.collective = op.collective().ncclName();
                e.count = op.count();
                e.dataType = op.type().ncclName();
                e.bytes = op.bytes();
                e.algorithm = op.algorithm();
                e.protocol = op.protocol();
                e.nChannels = op.nChannels();
                e.root = op.root();
                e.peer = op.peer();
                e.grouped = grouped;
                e.async = async;
                e.error = error == null ? null : String.valueOf(error.getMessage());
                e.commit();
            }
        }
    }

    /** A group's launch on this communicator that finishes the recorded synchronous calls when it is awaited. */
    private static final class GroupedLaunch implements GroupLauncher.Prepared {
        private final GroupLauncher.Prepared delegate;
        private final int nCalls;
        private final List<Pending> calls;
        private final CommCounters counters;
        private final int[] cells;
        private final long[] startNs;

        GroupedLaunch(GroupLauncher.Prepared delegate, int nCalls, List<Pending> calls, CommCounters counters,
                      int[] cells, long[] startNs) {
            this.delegate = delegate;
            this.nCalls = nCalls;
            this.calls = calls;
            this.counters = counters;
            this.cells = cells;
            this.startNs = startNs;
        }

        @Override
        public void connectSends() {
            delegate.connectSends();
        }

        @Override
        public void finishConnections() {
            delegate.finishConnections();
        }

        @Override
        public void submit(boolean mayInline) {
            delegate.submit(mayInline);
        }

        @Override
        public void await() {
            Throwable error = null;
            try {
                delegate.await();
            } catch (RuntimeException e) {
                error = e;
                for (int i = 0; i < nCalls; i++) {
                    counters.failed();
                }
                throw e;
            } finally {
                long now = System.nanoTime();
                for (int i = 0; i < nCalls; i++) {
                    counters.addNanos(cells[i], now - startNs[i]);
                }
                for (Pending p : calls) {
                    p.finish(error);
                }
            }
        }
    }
}
