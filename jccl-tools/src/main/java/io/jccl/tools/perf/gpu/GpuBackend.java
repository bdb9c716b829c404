package io.jccl.tools.perf.gpu;

import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaEvent;
import io.jccl.cuda.CudaGraph;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.tools.perf.CollectiveCall;
import io.jccl.tools.perf.PerfBackend;
import io.jccl.tools.perf.PerfBuffer;
import io.jccl.tools.perf.RankStats;

import java.lang.foreign.Arena;
import java.util.List;

/**
 * One GPU rank of a perf run, measuring either JCCL's {@link GpuCommunicator} or NCCL (through FFM) on the session's
 * buffers and stream: calls are enqueued on the stream and timed with CUDA events (start before the first call, end
 * after the last, divided by the calls), or, with {@code -G N}, the iterations are captured into a CUDA graph whose
 * N launches are timed, as nccl-tests does. The harness's bookkeeping (barriers, averaged times, wrong counts, rank
 * lines) goes over the host communicator of the same ranks.
 *
 * <p>Thread: the rank's thread; {@link #abort()} from the watchdog. Mirrors nccl-tests' per-GPU args and its
 * startColl/completeColl with CUDA events and graphs.
 */
final class GpuBackend implements PerfBackend {
    /** Which library this backend measures. */
    enum Library { JCCL, NCCL }

    /**
     * Calls made before timing each small call, untimed, so that the JVM has compiled (and, when a size takes a new
     * branch of the planner, recompiled) the launch path: interpreted FFM calls cost several microseconds each, and
     * nccl-tests' single warm-up iteration is meant for the GPU, not for a JIT.
     */
    static final int JIT_WARMUP_CALLS = 2000;
    private static final long JIT_WARMUP_MAX_BYTES = 4L << 20;
    /** A timed loop whose enqueueing took longer than this (and than half its GPU time) is reported. */
    static final double HOST_STALL_MS = 5;
    /**
     * {@code -Djccl.perf.gpuJitWarmupCalls=N}: the JIT warm-up calls before each timed call of up to 4 MiB
     * ({@value #JIT_WARMUP_CALLS} by default).
     */
    private static final int JIT_WARMUP = io.jccl.internal.param.InternalProperties.PERF_GPU_JIT_WARMUP_CALLS.get();

    private final GpuSession session;
    private final int local;
    private final Library lib;
    private final int graphLaunches;
    private final GpuCommunicator comm;
    private final CudaStream stream;
    private final CudaDevice device;
    private final CudaEvent start;
    private final CudaEvent end;
    private final Arena arena = Arena.ofShared();
    private final RankStats stats;
    private int buffers;
    private PreparedCall jitWarmed;
    private final LoopTrace trace;
    private final KernelRanges windowKernels;
    private final ComputeBeside beside;
    private final boolean putSignal;

    /** A prepared call that knows its size (for the JIT warm-up). */
    private record SizedCall(PreparedCall call, long bytes) implements PreparedCall {
        @Override
        public void launch() {
            call.launch();
        }
    }

    GpuBackend(GpuSession session, int local, Library lib, int graphLaunches, boolean computeBeside,
               boolean putSignal) {
        this.session = session;
        this.local = local;
        this.lib = lib;
        this.graphLaunches = graphLaunches;
        this.comm = session.comm(local);
        this.stats = new RankStats(comm.host(), arena);
        this.stream = session.stream(local);
        this.device = comm.device();
        this.start = CudaEvent.create(device, true);
        this.end = CudaEvent.create(device, true);
        this.trace = new LoopTrace(device, stream, "rank " + comm.rank() + " (" + lib + ")");
        this.windowKernels = lib == Library.JCCL && comm.rank() == 0
                && session.registration() != io.jccl.tools.perf.Registration.NONE ? new KernelRanges() : null;
        this.beside = computeBeside ? new ComputeBeside(comm, stream, stats) : null;
        this.putSignal = putSignal;
    }

    /** Loads (JIT-compiles) JCCL's kernels for these types and reductions before anything is timed or captured. */
    void preload(List<DataType> types, List<RedOp> ops) {
        if (lib == Library.JCCL) {
            for (DataType t : types) {
                for (RedOp op : ops) {
                    comm.preload(t, op);
                }
            }
        }
    }

    @Override
    public int rank() {
        return comm.rank();
    }

    @Override
    public int nRanks() {
        return comm.size();
    }

    @Override
    public String deviceBusId() {
        return device.pciBusId();
    }

    @Override
    public String deviceName() {
        NcclLibrary n = session.nccl();
        return device.name() + (lib == Library.NCCL ? " [NCCL " + n.versionString() + "]" : " [JCCL]");
    }

    @Override
    public int deviceIndex() {
        return device.ordinal();
    }

    @Override
    public PerfBuffer allocate(long sizeBytes) {
        return session.buffer(lib, local, buffers++, sizeBytes);
    }

    /** The kernels this rank's JCCL calls on windows ran, by size (rank 0 with -R 1/2; else null). */
    KernelRanges windowKernels() {
        return windowKernels;
    }

    /** The loops beside a compute kernel ({@code --compute-beside}), or null. */
    ComputeBeside computeBeside() {
        return beside;
    }

    /** With -R 1/2 the registered buffers go now, every rank at once (JCCL's windows are closed collectively). */
    @Override
    public void finish() {
        stream.synchronize();
        throwAsyncError();
        session.finish(lib, local);
    }

    @Override
    public PreparedCall prepare(CollectiveCall c) {
        GpuBuffer sb = (GpuBuffer) c.send();
        GpuBuffer rb = (GpuBuffer) c.recv();
        DeviceBuffer s = sb.slice(c.sendOffsetBytes(), c.sendBytes());
        DeviceBuffer r = rb.slice(c.recvOffsetBytes(), c.recvBytes());
        if (windowKernels != null && KernelRanges.SYMMETRIC.contains(c.coll().collective())) {
            windowKernels.add(Math.max(c.sendBytes(), c.recvBytes()), comm.algorithmFor(c.coll().collective(),
                    c.count(), c.type(), c.op(), s, r));
        }
        PreparedCall call = lib == Library.JCCL ? JcclCalls.prepare(comm, stream, c, s, r,
                putSignal ? session.window(local) : null)
                : NcclCalls.prepare(session.nccl(), session.ncclComm(local), comm, stream, c, s, r);
        return new SizedCall(call, Math.max(c.sendBytes(), c.recvBytes()));
    }

    @Override
    public void groupStart() {
        if (lib == Library.JCCL) {
            GpuCommunicator.groupStart();
        } else {
            session.nccl().groupStart();
        }
    }

    @Override
    public void groupEnd() {
        if (lib == Library.JCCL) {
            GpuCommunicator.groupEnd();
        } else {
            session.nccl().groupEnd();
        }
    }

    @Override
    public void synchronize() {
        stream.synchronize();
        throwAsyncError();
    }

    /**
     * Throws the communicator's asynchronous error, if any: a JCCL kernel whose wait for a peer passed the timeout
     * returns (so the stream completes) and leaves the error there; the timed results would be meaningless.
     */
    private void throwAsyncError() {
        var e = comm.asyncError();
        if (e != null) {
            throw e;
        }
    }

    @Override
    public double timeCalls(PreparedCall call, int iters, int agg, boolean blocking) {
        long entered = System.nanoTime();
        device.makeCurrent();
        if (call != jitWarmed) {
            // every rank times the same calls in the same order, so every rank makes the same extra calls
            jitWarmed = call;
            if (call instanceof SizedCall sc && sc.bytes() <= JIT_WARMUP_MAX_BYTES) {
                for (int i = 0; i < JIT_WARMUP; i++) {
                    call.launch();
                }
                stream.synchronize();
            }
        }
        if (LoopTrace.ALIGN_LOOPS) {
            stats.barrier();
        }
        long warmedNs = System.nanoTime();
        if (graphLaunches > 0) {
            return timeGraph(call, iters, agg);
        }
        String what = call instanceof SizedCall sc ? sc.bytes() + " B" : "call";
        if (!blocking && LoopTrace.replacesLoop(iters)) {
            Runnable one = () -> issue(call, agg);
            double ms = LoopTrace.MODE == LoopTrace.Mode.CALLS ? trace.timeCalls(one, iters, what)
                    : trace.timeSegments(one, iters, what, entered, start, end);
            return ms / 1e3 / ((double) iters * agg);
        }
        start.record(stream);
        long t0 = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            issue(call, agg);
            if (blocking) {
                stream.synchronize();
            } else if (LoopTrace.QUERY_AFTER_LAUNCH) {
                stream.isIdle();
            }
        }
        long enqueued = System.nanoTime();
        end.record(stream);
        end.synchronize();
        throwAsyncError();
        double elapsedMs = CudaEvent.elapsedMillis(start, end);
        if (!blocking) {
            noteHostStall(what, enqueued - t0, elapsedMs, iters * agg);
            trace.host(what, entered, warmedNs, t0, enqueued, elapsedMs);
        }
        if (beside != null) {
            beside.measure(call instanceof SizedCall sc ? sc.bytes() : 0, elapsedMs, () -> {
                for (int i = 0; i < iters; i++) {
                    issue(call, agg);
                }
            });
            throwAsyncError();
        }
        return elapsedMs / 1e3 / ((double) iters * agg);
    }

    /**
     * Says so on stderr when this rank's thread took long to enqueue the timed calls: the GPU time then includes
     * the wait (a peer's kernels spin until this rank's arrive), and the line tells a host stall from a GPU one.
     */
    private void noteHostStall(String what, long hostNs, double elapsedMs, int calls) {
        double hostMs = hostNs / 1e6;
        if (hostMs > HOST_STALL_MS && hostMs > 0.5 * elapsedMs) {
            System.err.printf("# jccl perf: rank %d (%s) took %.1f ms to enqueue %d timed calls of %s (GPU time %.1f"
                    + " ms): a host stall%n", comm.rank(), lib, hostMs, calls, what, elapsedMs);
        }
    }

    /** nccl-tests' -G: the iterations captured into one graph, launched graphLaunches times. */
    private double timeGraph(PreparedCall call, int iters, int agg) {
        stream.beginCapture(lib == Library.NCCL);
        CudaGraph graph;
        try {
            for (int i = 0; i < iters; i++) {
                issue(call, agg);
            }
        } catch (RuntimeException e) {
            stream.abortCapture();
            throw e;
        }
        graph = stream.endCapture();
        try {
            graph.upload(stream);
            start.record(stream);
            for (int l = 0; l < graphLaunches; l++) {
                graph.launch(stream);
            }
            end.record(stream);
            end.synchronize();
            throwAsyncError();
            return CudaEvent.elapsedMillis(start, end) / 1e3 / ((double) iters * agg * graphLaunches);
        } finally {
            graph.close();
        }
    }

    private void issue(PreparedCall call, int agg) {
        if (agg > 1) {
            groupStart();
            try {
                for (int j = 0; j < agg; j++) {
                    call.launch();
                }
            } finally {
                groupEnd();
            }
        } else {
            call.launch();
        }
    }

    @Override
    public void barrier() {
        stats.barrier();
    }

    @Override
    public double reduceStat(double value, StatMode mode) {
        return stats.reduceStat(value, mode);
    }

    @Override
    public long sumLong(long value) {
        return stats.sumLong(value);
    }

    @Override
    public List<String> gatherLines(String line) {
        return stats.gatherLines(line);
    }

    @Override
    public void abort() {
        comm.abort();
    }

    @Override
    public void close() {
        try {
            start.close();
            end.close();
            if (beside != null) {
                beside.close();
            }
            trace.close();
            arena.close();
        } finally {
            session.release();
        }
    }
}
