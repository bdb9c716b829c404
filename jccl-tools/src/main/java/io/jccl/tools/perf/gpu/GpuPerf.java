package io.jccl.tools.perf.gpu;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.tools.Cli;
import io.jccl.tools.perf.OpChoice;
import io.jccl.tools.perf.PerfBackend;
import io.jccl.tools.perf.PerfCollective;
import io.jccl.tools.perf.PerfOptions;
import io.jccl.tools.perf.PerfTarget;
import io.jccl.tools.perf.RankThreads;
import io.jccl.tools.perf.SizeSweep;
import io.jccl.tools.perf.ResultRecord;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code jccl perf ... --backend jccl|nccl|both} (or {@code -g G}): GPU runs. One process drives {@code -g} GPUs
 * (GpuCommunicator.initAll; NCCL's ncclCommInitAll), or, started by a launcher ({@code -np N}), each process drives
 * the {@code -g} GPUs of its local rank, from GPU {@code localRank × g} (GpuCommunicator.fromEnvironment;
 * ncclCommInitRank, in a group for several), as nccl-tests' {@code mpirun -np N ... -g G}. Each rank runs on its own
 * thread
 * through the usual perf harness; {@code both} measures JCCL, then NCCL on the same buffers and streams, and prints a
 * side-by-side table. Runs on the main thread. The GPU counterpart of nccl-tests' main.
 */
public final class GpuPerf {
    private GpuPerf() {
    }

    /**
     * Runs the sweep; {@code localIndex} is this process's local rank under a launcher, or -1 for one process
     * driving {@code o.gpus()} GPUs. Returns the exit code.
     */
    public static int run(PerfOptions o, int localIndex, PrintStream out, PrintStream err, double minBusBw) {
        boolean withNccl = o.target() == PerfTarget.NCCL || o.target() == PerfTarget.BOTH;
        GpuSession session;
        try {
            session = GpuSession.open(o.gpus(), localIndex, withNccl);
        } catch (RuntimeException e) {
            err.println("jccl perf: cannot open the GPUs: " + Cli.describe(e));
            return 1;
        }
        List<GpuBackend.Library> libs = switch (o.target()) {
            case NCCL -> List.of(GpuBackend.Library.NCCL);
            case BOTH -> List.of(GpuBackend.Library.JCCL, GpuBackend.Library.NCCL);
            default -> List.of(GpuBackend.Library.JCCL);
        };
        int n = session.localRanks();
        session.retain(n * libs.size());
        boolean rank0 = session.comm(0).rank() == 0;
        List<List<ResultRecord>> results = new ArrayList<>();
        int rc = 0;
        for (GpuBackend.Library lib : libs) {
            List<PerfBackend> backends = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                GpuBackend b = new GpuBackend(session, i, lib, o.graphLaunches());
                b.preload(o.types(), ops(o));
                backends.add(b);
            }
            if (rank0) {
                out.println("# Backend: " + (lib == GpuBackend.Library.JCCL ? "JCCL " + io.jccl.Jccl.version()
                        + " GpuCommunicator" : "NCCL " + session.nccl().versionString() + " (" + session.nccl().path()
                        + ")") + (o.graphLaunches() > 0 ? ", CUDA graph of the -n iterations launched "
                        + o.graphLaunches() + " times" : ""));
                if (lib == GpuBackend.Library.JCCL && o.collective() == PerfCollective.ALL_REDUCE) {
                    out.println("# JCCL allReduce kernels (float sum): " + kernels(session.comm(0), o.sweep()));
                }
                out.flush();
            }
            RankThreads threads = new RankThreads(o, backends, out, err, minBusBw, GpuElementAccess.INSTANCE);
            rc = Math.max(rc, threads.run());
            results.add(threads.results());
        }
        if (libs.size() == 2 && rank0) {
            Comparison.print(out, session.nccl().versionString(), results.get(0), results.get(1));
        }
        return rc;
    }

    /** The allReduce kernel per size of the sweep, as ranges: "ll128 8..4194304, twoshot 8388608". */
    static String kernels(GpuCommunicator g, SizeSweep sweep) {
        StringBuilder sb = new StringBuilder();
        String current = null;
        long first = 0;
        long last = 0;
        for (long bytes : sweep.sizes()) {
            String k = g.algorithmFor(Collective.ALL_REDUCE, Math.max(1, bytes / 4), DataType.FLOAT32, RedOp.SUM)
                    .split(" ")[0];
            if (!k.equals(current)) {
                appendRange(sb, current, first, last);
                current = k;
                first = bytes;
            }
            last = bytes;
        }
        appendRange(sb, current, first, last);
        return sb.toString();
    }

    private static void appendRange(StringBuilder sb, String kernel, long first, long last) {
        if (kernel != null) {
            sb.append(sb.isEmpty() ? "" : ", ").append(kernel).append(' ').append(first)
                    .append(first == last ? "" : ".." + last);
        }
    }

    private static List<RedOp> ops(PerfOptions o) {
        List<RedOp> ops = new ArrayList<>();
        for (OpChoice c : o.opsToRun()) {
            ops.add(c == null ? RedOp.SUM : c.redOp(0));
        }
        return ops;
    }
}
