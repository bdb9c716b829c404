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
import io.jccl.tools.perf.Registration;
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
            session = GpuSession.open(o.gpus(), localIndex, withNccl, o.registration());
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
        if (rank0 && o.registration() == Registration.BUFFERS && libs.contains(GpuBackend.Library.JCCL)) {
            out.println("# -R 1: JCCL has no separate user-buffer registration; its buffers are windows, as with -R 2");
        }
        for (GpuBackend.Library lib : libs) {
            List<PerfBackend> backends = new ArrayList<>();
            GpuBackend first = null;
            for (int i = 0; i < n; i++) {
                GpuBackend b = new GpuBackend(session, i, lib, o.graphLaunches(), o.computeBeside(),
                        o.putSignal());
                b.preload(o.types(), ops(o));
                backends.add(b);
                first = first == null ? b : first;
            }
            if (rank0) {
                out.println("# Backend: " + (lib == GpuBackend.Library.JCCL ? "JCCL " + io.jccl.Jccl.version()
                        + " GpuCommunicator" : "NCCL " + session.nccl().versionString() + " (" + session.nccl().path()
                        + ")") + (o.graphLaunches() > 0 ? ", CUDA graph of the -n iterations launched "
                        + o.graphLaunches() + " times" : "") + registered(o.registration(), lib));
                if (lib == GpuBackend.Library.JCCL && o.collective() == PerfCollective.ALL_REDUCE
                        && o.registration() == Registration.NONE) {
                    out.println("# JCCL allReduce kernels (float sum): " + kernels(session.comm(0), o.sweep()));
                }
                out.flush();
            }
            RankThreads threads = new RankThreads(o, backends, out, err, minBusBw, GpuElementAccess.INSTANCE);
            rc = Math.max(rc, threads.run());
            results.add(threads.results());
            if (first.computeBeside() != null) {
                first.computeBeside().print(out, lib + " " + o.collective().testName());
            }
            KernelRanges onWindows = first.windowKernels();
            if (onWindows != null && !onWindows.isEmpty()) {
                out.println("# JCCL kernels on the windows (" + o.collective().testName() + ", by size): "
                        + onWindows);
                out.flush();
            }
        }
        if (libs.size() == 2 && rank0) {
            Comparison.print(out, session.nccl().versionString(), results.get(0), results.get(1));
        }
        return rc;
    }

    /** The allReduce kernel per size of the sweep, as ranges: "ll128 8..4194304, twoshot 8388608". */
    static String kernels(GpuCommunicator g, SizeSweep sweep) {
        KernelRanges ranges = new KernelRanges();
        for (long bytes : sweep.sizes()) {
            ranges.add(bytes, g.algorithmFor(Collective.ALL_REDUCE, Math.max(1, bytes / 4), DataType.FLOAT32,
                    RedOp.SUM));
        }
        return ranges.toString();
    }

    /** The backend line's words for -R: how the buffers are registered with {@code lib}. */
    static String registered(Registration r, GpuBackend.Library lib) {
        return switch (r) {
            case NONE -> "";
            case BUFFERS -> lib == GpuBackend.Library.NCCL ? ", buffers from ncclMemAlloc registered with "
                    + "ncclCommRegister (-R 1)" : ", buffers in JCCL windows (-R 1 as -R 2)";
            case WINDOWS -> lib == GpuBackend.Library.NCCL ? ", buffers from ncclMemAlloc registered with "
                    + "ncclCommWindowRegister, NCCL_WIN_COLL_SYMMETRIC (-R 2)" : ", buffers in JCCL windows (-R 2)";
        };
    }

    private static List<RedOp> ops(PerfOptions o) {
        List<RedOp> ops = new ArrayList<>();
        for (OpChoice c : o.opsToRun()) {
            ops.add(c == null ? RedOp.SUM : c.redOp(0));
        }
        return ops;
    }
}
