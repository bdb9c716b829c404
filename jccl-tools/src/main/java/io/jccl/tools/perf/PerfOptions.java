package io.jccl.tools.perf;

import io.jccl.DataType;

import java.nio.file.Path;
import java.util.List;

/**
 * A validated perf run configuration (what nccl-tests keeps in globals after {@code getopt}). A value computed once
 * by {@link PerfMain}; read by every rank's runner.
 *
 * @param collective  what to measure
 * @param sweep       the sizes
 * @param iters       timed iterations per size ({@code -n})
 * @param warmupIters warm-up iterations per warm-up size ({@code -w})
 * @param aggIters    calls per iteration, inside one group ({@code -m})
 * @param check       correctness iterations per size and placement ({@code -c}); 0 disables checking
 * @param cycles      times the sweep is repeated ({@code -N}); 0 means forever
 * @param blocking    {@code -z}: accepted for compatibility; host calls always complete before returning
 * @param statMode    how times are combined across ranks ({@code -a})
 * @param root        the root rank, or -1 for every rank in turn ({@code -r})
 * @param types       the element types ({@code -d}, {@code all} expands to every type)
 * @param ops         the reductions ({@code -o})
 * @param timeoutSec  a single operation running longer than this aborts the run ({@code -T}); 0 disables
 * @param processes   {@code -np}: launch this many local processes (0: not requested)
 * @param threads     {@code -t}: ranks as threads of this process
 * @param gpus        {@code -g}: GPUs driven by this process (1 on the host backend; with {@code -np}, per process)
 * @param graphLaunches {@code -G}: 0, or capture the {@code -n} iterations into a CUDA graph launched this many times
 * @param computeBeside {@code --compute-beside}: each timed loop again beside a compute kernel (GPU runs)
 * @param putSignal   {@code --put-signal}: sendrecv as JCCL's putSignal into the next rank's window and waitSignal
 * @param registration {@code -R}: how the buffers are registered with the library measured
 * @param target      {@code --backend}: what is measured
 * @param jsonFile    where to write the JSON report, or null
 * @param csvFile     where to write the CSV report, or null
 * @param plotFile    where to write the SVG plot of bus bandwidth against size, or null
 * @param args        the command line as given (for the JSON report)
 */
public record PerfOptions(PerfCollective collective, SizeSweep sweep, int iters, int warmupIters, int aggIters,
                          int check, int cycles, int blocking, PerfBackend.StatMode statMode, int root,
                          List<DataType> types, List<OpChoice> ops, double timeoutSec, int processes, int threads,
                          int gpus, int graphLaunches, boolean computeBeside, boolean putSignal,
                          Registration registration, PerfTarget target,
                          Path jsonFile, Path csvFile, Path plotFile, List<String> args) {

    public PerfOptions {
        require(iters >= 1, "-n (iterations) must be at least 1, got " + iters);
        require(warmupIters >= 0, "-w (warm-up iterations) must not be negative, got " + warmupIters);
        require(aggIters >= 1, "-m (aggregated calls) must be at least 1, got " + aggIters);
        require(check >= 0, "-c (check iterations) must not be negative, got " + check);
        require(cycles >= 0, "-N (cycles) must not be negative, got " + cycles);
        require(root >= -1, "-r (root) must be a rank or -1 for all, got " + root);
        require(!types.isEmpty(), "no data type selected");
        require(!ops.isEmpty(), "no reduction selected");
        require(timeoutSec >= 0, "-T (timeout) must not be negative, got " + timeoutSec);
        require(processes >= 0, "-np must not be negative, got " + processes);
        require(threads >= 1, "-t (threads) must be at least 1, got " + threads);
        require(gpus >= 1, "-g must be at least 1, got " + gpus);
        require(graphLaunches >= 0, "-G must not be negative, got " + graphLaunches);
        java.util.Objects.requireNonNull(registration, "registration");
        require(target.gpu() || (gpus == 1 && graphLaunches == 0), "-g " + gpus + " and -G " + graphLaunches
                + " need a GPU backend: --backend jccl, nccl or both");
        require(!computeBeside || (target.gpu() && graphLaunches == 0 && blocking == 0),
                "--compute-beside needs a GPU backend (--backend jccl, nccl or both) without -G and -z");
        require(!putSignal || (collective == PerfCollective.SEND_RECV && target == PerfTarget.JCCL
                        && registration != Registration.NONE),
                "--put-signal measures sendrecv with -R 1 or 2 and --backend jccl (its buffers are windows)");
        require(!target.gpu() || threads == 1, "-t: GPU runs use one thread per GPU already; drop -t");
        require(processes == 0 || threads == 1,
                "-np and -t cannot be combined: choose processes (-np) or threads (-t)");
        types = List.copyOf(types);
        ops = List.copyOf(ops);
        args = List.copyOf(args);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** The roots a run over {@code nRanks} ranks visits: -1 for unrooted collectives. */
    public List<Integer> roots(int nRanks) {
        if (!collective.rooted()) {
            return List.of(-1);
        }
        if (root >= nRanks) {
            throw new IllegalArgumentException("-r " + root + " is not a rank of this " + nRanks
                    + "-rank run; use 0.." + (nRanks - 1) + " or -1 for all");
        }
        return root == -1 ? java.util.stream.IntStream.range(0, nRanks).boxed().toList() : List.of(root);
    }

    /** The reductions a run visits: one placeholder (null) for collectives without an operation. */
    public List<OpChoice> opsToRun() {
        return collective.usesOp() ? ops : java.util.Collections.singletonList(null);
    }
}
