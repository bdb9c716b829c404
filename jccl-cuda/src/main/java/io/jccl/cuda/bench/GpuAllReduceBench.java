package io.jccl.cuda.bench;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.AllReduceAlgorithm;
import io.jccl.cuda.CliqueOptions;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaGraph;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuClique;
import io.jccl.cuda.PinnedBuffer;
import io.jccl.cuda.nccl.NcclLibrary;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * allReduce on several GPUs of one process: JCCL's {@link GpuClique} and NCCL (ncclCommInitAll, through FFM) side
 * by side in one run, on the same device buffers and streams. For every size: each result is checked element by
 * element (non-zero data, the output pre-filled with NaN), then timed with CUDA events (warm-up, median of
 * repetitions). Prints a table like nccl-tests (time, algbw, busbw = algbw * 2(n-1)/n, #wrong) and the ratio
 * NCCL time / JCCL time. {@code --graph} adds rows where N calls are captured into a CUDA graph and replayed.
 * {@code --nccl-dump} only initialises NCCL and runs one allReduce (for NCCL_TOPO_DUMP_FILE / NCCL_GRAPH_DUMP_FILE).
 *
 * <p>Thread: main thread only. Usage: {@code java -cp ... io.jccl.cuda.bench.GpuAllReduceBench -g 2 -b 8 -e 1G -f 4}.
 */
public final class GpuAllReduceBench {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final BenchOptions o;
    private final CudaDevice[] devices;
    private final CudaStream[] streams;
    private final DeviceBuffer[] send;
    private final DeviceBuffer[] recv;
    private final PinnedBuffer host;
    private final List<GpuClique> cliques = new ArrayList<>();
    private final NcclLibrary nccl;
    private final MemorySegment[] comms;
    private final EventTimer timer;

    private GpuAllReduceBench(BenchOptions o) {
        this.o = o;
        int n = o.gpus();
        devices = new CudaDevice[n];
        streams = new CudaStream[n];
        send = new DeviceBuffer[n];
        recv = new DeviceBuffer[n];
        long bytes = (o.maxBytes() + 15) / 16 * 16;
        for (int g = 0; g < n; g++) {
            devices[g] = CudaDevice.get(g);
            streams[g] = CudaStream.create(devices[g]);
            send[g] = DeviceBuffer.allocate(devices[g], bytes);
            recv[g] = o.inPlace() ? send[g] : DeviceBuffer.allocate(devices[g], bytes);
        }
        host = PinnedBuffer.allocate(devices[0], bytes);
        CliqueOptions base = CliqueOptions.fromSystemProperties();
        for (AllReduceAlgorithm a : o.algorithms()) {
            cliques.add(GpuClique.open(base.withAlgorithm(a), devices));
        }
        if (o.nccl()) {
            requireNoNvls();
            nccl = NcclLibrary.load();
            int[] ords = new int[n];
            for (int g = 0; g < n; g++) {
                ords[g] = g;
            }
            comms = nccl.commInitAll(ords);
        } else {
            nccl = null;
            comms = null;
        }
        timer = new EventTimer(streams);
    }

    public static void main(String[] args) {
        BenchOptions o = BenchOptions.parse(args);
        if (o.ncclDump()) {
            ncclDump(o);
            return;
        }
        GpuAllReduceBench b = new GpuAllReduceBench(o);
        b.run();
    }

    private void run() {
        printHeader();
        long maxCount = o.maxBytes() / o.type().sizeBytes();
        for (int g = 0; g < devices.length; g++) {
            fillInputs(g, maxCount);
        }
        warmUpJvm();
        printColumns();
        for (long bytes : o.sizes()) {
            long count = bytes / o.type().sizeBytes();
            if (count == 0) {
                continue;
            }
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%12d %11d", count * o.type().sizeBytes(), count));
            double firstUs = Double.NaN;
            for (GpuClique c : cliques) {
                AllReduceAlgorithm chosen = c.algorithmFor(count, o.type(), o.inPlace());
                if (!applicable(c, chosen, count)) {
                    row.append(String.format(Locale.ROOT, " | %-8s %9s %7s %6s", "-", "-", "-", "-"));
                    continue;
                }
                long wrong = check(() -> c.allReduce(send, recv, count, o.type(), o.op(), streams), count);
                EventTimer.Timing t = timer.time(() -> c.allReduce(send, recv, count, o.type(), o.op(), streams),
                        o.warmup(), o.itersFor(bytes), o.reps());
                if (Double.isNaN(firstUs)) {
                    firstUs = t.gpuUs();
                    row.append(String.format(Locale.ROOT, " | %-8s %9.2f %6.2f %7.2f %6d", chosen.shortName(), t.gpuUs(),
                            t.hostUs(), busBw(count, t.gpuUs()), wrong));
                } else {
                    row.append(String.format(Locale.ROOT, " | %-8s %9.2f %7.2f %6d", chosen.shortName(), t.gpuUs(),
                            busBw(count, t.gpuUs()), wrong));
                }
            }
            if (nccl != null) {
                long wrong = check(() -> ncclAllReduce(count), count);
                EventTimer.Timing t = timer.time(() -> ncclAllReduce(count), o.warmup(), o.itersFor(bytes), o.reps());
                row.append(String.format(Locale.ROOT, " | %9.2f %6.2f %7.2f %6d | %6.2fx", t.gpuUs(), t.hostUs(),
                        busBw(count, t.gpuUs()), wrong, t.gpuUs() / firstUs));
            }
            System.out.println(row);
        }
        if (o.graph()) {
            runGraphs();
        }
        close();
    }

    private boolean applicable(GpuClique c, AllReduceAlgorithm a, long count) {
        long bytes = count * o.type().sizeBytes();
        return switch (a) {
            case LL -> bytes <= c.options().llMaxBytes();
            case PUSH -> bytes <= c.options().pushMaxBytes();
            case ONE_SHOT -> !o.inPlace();
            default -> true;
        };
    }

    private void runGraphs() {
        int k = o.graphOpsPerLaunch();
        System.out.println();
        System.out.println("# CUDA graph replay: " + k + " allReduce calls captured per graph and GPU; time per call");
        System.out.printf(Locale.ROOT, "# %10s %11s | %-8s %9s %6s | %9s %6s | %s%n", "size", "count", "jccl", "time(us)",
                "#wrong", "nccl(us)", "#wrong", "nccl/jccl");
        for (long bytes : o.graphSizes()) {
            long count = Math.max(1, bytes / o.type().sizeBytes());
            List<String> rows = new ArrayList<>();
            List<Double> times = new ArrayList<>();
            for (GpuClique c : cliques) {
                AllReduceAlgorithm chosen = c.algorithmFor(count, o.type(), o.inPlace());
                if (!applicable(c, chosen, count)) {
                    continue;
                }
                CudaGraph[] jg = capture(() -> c.allReduce(send, recv, count, o.type(), o.op(), streams), k, false);
                long jWrong = check(() -> launchAll(jg), count);
                double jUs = timer.time(() -> launchAll(jg), 2, Math.max(1, o.iters() / k * 4), o.reps()).gpuUs() / k;
                closeAll(jg);
                rows.add(String.format(Locale.ROOT, "  %10d %11d | %-8s %9.2f %6d", count * o.type().sizeBytes(), count,
                        chosen.shortName(), jUs, jWrong));
                times.add(jUs);
            }
            String nUs = "-";
            String nWrong = "-";
            double ncclUs = Double.NaN;
            if (nccl != null) {
                try {
                    CudaGraph[] ng = capture(() -> ncclAllReduce(count), k, true);
                    nWrong = Long.toString(check(() -> launchAll(ng), count));
                    ncclUs = timer.time(() -> launchAll(ng), 2, Math.max(1, o.iters() / k * 4), o.reps()).gpuUs() / k;
                    closeAll(ng);
                    nUs = String.format(Locale.ROOT, "%.2f", ncclUs);
                } catch (JcclException e) {
                    nUs = "n/a (" + e.getMessage() + ")";
                }
            }
            for (int i = 0; i < rows.size(); i++) {
                System.out.printf(Locale.ROOT, "%s | %9s %6s | %s%n", rows.get(i), nUs, nWrong,
                        Double.isNaN(ncclUs) ? "-" : String.format(Locale.ROOT, "%.2fx", ncclUs / times.get(i)));
            }
        }
    }

    /** Runs every path a few thousand times so the JIT has compiled the launch code before anything is timed. */
    private void warmUpJvm() {
        long count = Math.max(1, 8 / o.type().sizeBytes());
        for (int round = 0; round < 10; round++) {
            for (int i = 0; i < 200; i++) {
                for (GpuClique c : cliques) {
                    c.allReduce(send, recv, count, o.type(), o.op(), streams);
                }
                if (nccl != null) {
                    ncclAllReduce(count);
                }
            }
            waitAll();
        }
    }

    private CudaGraph[] capture(Runnable op, int k, boolean relaxed) {
        for (CudaStream s : streams) {
            s.synchronize();
        }
        try {
            for (CudaStream s : streams) {
                s.beginCapture(relaxed);
            }
            for (int i = 0; i < k; i++) {
                op.run();
            }
            CudaGraph[] graphs = new CudaGraph[streams.length];
            for (int g = 0; g < streams.length; g++) {
                graphs[g] = streams[g].endCapture();
            }
            return graphs;
        } catch (RuntimeException e) {
            for (CudaStream s : streams) {
                s.abortCapture();
            }
            throw e;
        }
    }

    private void launchAll(CudaGraph[] graphs) {
        for (int g = 0; g < graphs.length; g++) {
            graphs[g].launch(streams[g]);
        }
    }

    private static void closeAll(CudaGraph[] graphs) {
        for (CudaGraph g : graphs) {
            g.close();
        }
    }

    /** Pre-fills the outputs with NaN, runs {@code op} once, and counts wrong elements on every GPU. */
    private long check(Runnable op, long count) {
        long bytes = count * o.type().sizeBytes();
        if (!o.inPlace()) {
            for (int g = 0; g < devices.length; g++) {
                recv[g].fillAsync((byte) 0xFF, streams[g]);
            }
        } else {
            for (int g = 0; g < devices.length; g++) {
                fillInputs(g, count);
            }
        }
        op.run();
        waitAll();
        long wrong = 0;
        MemorySegment h = host.segment().asSlice(0, bytes);
        for (int g = 0; g < devices.length; g++) {
            recv[g].copyTo(h);
            wrong += BenchData.countWrong(h, o.type(), o.op(), devices.length, count);
        }
        if (o.inPlace()) {
            for (int g = 0; g < devices.length; g++) {
                fillInputs(g, count);
            }
        }
        return wrong;
    }

    private void fillInputs(int g, long count) {
        MemorySegment h = host.segment().asSlice(0, count * o.type().sizeBytes());
        BenchData.fill(h, o.type(), o.op(), g, count);
        send[g].copyFrom(h);
    }

    private void waitAll() {
        if (!cliques.isEmpty()) {
            cliques.get(0).synchronize(streams, TIMEOUT);
        } else {
            for (CudaStream s : streams) {
                s.synchronize();
            }
        }
    }

    private void ncclAllReduce(long count) {
        nccl.groupStart();
        for (int g = 0; g < devices.length; g++) {
            nccl.allReduce(send[g].address(), recv[g].address(), count, o.type(), o.op(), comms[g], streams[g].handle());
        }
        nccl.groupEnd();
    }

    private double busBw(long count, double us) {
        int n = devices.length;
        double algBw = count * (double) o.type().sizeBytes() / (us * 1e-6) / 1e9;
        return algBw * 2.0 * (n - 1) / n;
    }

    private void printHeader() {
        System.out.println("# JCCL GPU allReduce benchmark: " + o.type().ncclName() + " " + o.op() + ", "
                + (o.inPlace() ? "in place" : "out of place") + ", " + devices.length + " GPUs, warmup " + o.warmup()
                + ", iters " + o.iters() + " (fewer above 32 MiB), median of " + o.reps() + " repetitions");
        System.out.println("# CUDA driver " + CudaDevice.driverVersion());
        for (CudaDevice d : devices) {
            System.out.println("#   " + d);
        }
        if (nccl != null) {
            System.out.println("# NCCL " + nccl.versionString() + " from " + nccl.path());
        }
        System.out.println("# JCCL options " + cliques.get(0).options());
    }

    private void printColumns() {
        StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "#%11s %11s", "size(B)", "count"));
        boolean first = true;
        for (AllReduceAlgorithm a : o.algorithms()) {
            h.append(first ? String.format(Locale.ROOT, " | %-8s %9s %6s %7s %6s", "jccl:" + a.shortName(), "time(us)",
                    "host", "busbw", "#wrong")
                    : String.format(Locale.ROOT, " | %-8s %9s %7s %6s", "jccl:" + a.shortName(), "time(us)", "busbw",
                    "#wrong"));
            first = false;
        }
        if (nccl != null) {
            h.append(String.format(Locale.ROOT, " | %9s %6s %7s %6s | %7s", "nccl(us)", "host", "busbw", "#wrong",
                    "nccl/jccl"));
        }
        System.out.println(h);
    }

    private void close() {
        for (GpuClique c : cliques) {
            c.close();
        }
        if (nccl != null) {
            for (MemorySegment c : comms) {
                nccl.commDestroy(c);
            }
        }
        timer.close();
        for (int g = 0; g < devices.length; g++) {
            if (recv[g] != send[g]) {
                recv[g].close();
            }
            send[g].close();
            streams[g].close();
        }
        host.close();
    }

    private static void requireNoNvls() {
        if (!"0".equals(System.getenv("NCCL_NVLS_ENABLE"))) {
            throw new JcclException(Result.INVALID_USAGE, "set NCCL_NVLS_ENABLE=0 before running NCCL here: NVLink "
                    + "multicast must stay off on the shared GPU machines");
        }
    }

    /** Initialises NCCL on {@code -g} GPUs, runs one 1 MiB float allReduce, and exits (for NCCL's dump files). */
    private static void ncclDump(BenchOptions o) {
        requireNoNvls();
        NcclLibrary nccl = NcclLibrary.load();
        int n = o.gpus();
        int[] ords = new int[n];
        CudaStream[] streams = new CudaStream[n];
        DeviceBuffer[] bufs = new DeviceBuffer[n];
        for (int g = 0; g < n; g++) {
            ords[g] = g;
            CudaDevice d = CudaDevice.get(g);
            streams[g] = CudaStream.create(d);
            bufs[g] = DeviceBuffer.allocate(d, 1 << 20);
            bufs[g].zero();
        }
        MemorySegment[] comms = nccl.commInitAll(ords);
        nccl.groupStart();
        for (int g = 0; g < n; g++) {
            nccl.allReduce(bufs[g].address(), bufs[g].address(), (1 << 20) / 4, DataType.FLOAT32, RedOp.SUM, comms[g],
                    streams[g].handle());
        }
        nccl.groupEnd();
        for (int g = 0; g < n; g++) {
            streams[g].synchronize();
            nccl.commDestroy(comms[g]);
            bufs[g].close();
            streams[g].close();
        }
        System.out.println("NCCL " + nccl.versionString() + ": one allReduce on " + n + " GPUs done");
    }
}
