package io.jccl.tools.perf;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.tools.Cli;
import io.jccl.tools.run.CoreBinding;
import io.jccl.tools.run.HostfileJob;
import io.jccl.tools.run.LaunchSpec;
import io.jccl.tools.run.JvmCommandLine;
import io.jccl.tools.run.LocalJob;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code jccl perf <collective> [flags]}: nccl-tests' {@code *_perf} binaries in one command, same flags, same
 * table. Decides how ranks are formed: {@code -np N} launches N local processes (each runs this class as one rank),
 * {@code -t N} runs N ranks as threads of this process, a launcher environment (jccl run, torchrun, mpirun, srun)
 * makes this process one rank, otherwise it runs alone. Runs on the main thread; mirrors nccl-tests' {@code main}.
 */
@Command(name = "jccl perf", mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = io.jccl.tools.JcclVersion.class,
        description = {"Measures a collective like nccl-tests: time, algbw and busbw per size, out-of-place and "
                + "in-place, with every result element checked.",
                "Collectives: all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv, gather, "
                        + "scatter (nccl-tests binary names such as all_reduce_perf work too)."})
public final class PerfMain implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "COLLECTIVE", description = "what to measure, e.g. all_reduce")
    String collective;

    @Option(names = {"-b", "--minbytes"}, defaultValue = "32M",
            description = "smallest size (K/M/G suffixes, 1024-based; default ${DEFAULT-VALUE})")
    String minBytes;
    @Option(names = {"-e", "--maxbytes"}, defaultValue = "32M", description = "largest size (default ${DEFAULT-VALUE})")
    String maxBytes;
    @Option(names = {"-i", "--stepbytes"}, defaultValue = "1M",
            description = "additive step (default ${DEFAULT-VALUE})")
    String stepBytes;
    @Option(names = {"-f", "--stepfactor"}, defaultValue = "1", description = "multiplicative step, used when > 1")
    long stepFactor;
    @Option(names = {"-n", "--iters"}, defaultValue = "20", description = "timed iterations (default ${DEFAULT-VALUE})")
    int iters;
    @Option(names = {"-w", "--warmup_iters"}, defaultValue = "1",
            description = "warm-up iterations (default ${DEFAULT-VALUE})")
    int warmup;
    @Option(names = {"-m", "--agg_iters"}, defaultValue = "1", description = "calls per iteration, in one group")
    int agg;
    @Option(names = {"-N", "--run_cycles"}, defaultValue = "1", description = "repeat the sweep (0: forever)")
    int cycles;
    @Option(names = {"-c", "--check"}, defaultValue = "1", description = "check iterations per size (0: no check)")
    int check;
    @Option(names = {"-o", "--op"}, defaultValue = "sum", description = "sum, prod, min, max, avg, mulsum or all")
    String op;
    @Option(names = {"-d", "--datatype"}, defaultValue = "float",
            description = "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 f8e5m2, or all")
    String datatype;
    @Option(names = {"-r", "--root"}, defaultValue = "0", description = "root rank, or -1/all for every rank")
    String root;
    @Option(names = {"-a", "--average"}, defaultValue = "1",
            description = "time across ranks: 0 rank 0, 1 average, 2 min, 3 max")
    int average;
    @Option(names = {"-z", "--blocking"}, defaultValue = "0", description = "blocking calls (host calls always block)")
    int blocking;
    @Option(names = {"-T", "--timeout"}, defaultValue = "0",
            description = "abort if one operation takes longer than S seconds")
    double timeoutSec;
    @Option(names = {"-np", "--np"}, defaultValue = "0", description = "launch N local processes, one rank each")
    int processes;
    @Option(names = "--hostfile", paramLabel = "FILE",
            description = "with -np: start the ranks on the hosts of FILE ('host slots=N' lines), as jccl run "
                    + "--hostfile")
    Path hostfile;
    @Option(names = "--rsh", paramLabel = "CMD",
            description = "with --hostfile: the remote shell (default $JCCL_RSH or ssh -o BatchMode=yes; 'ip netns "
                    + "exec' for namespaces)")
    String rsh;
    @Option(names = "--master-addr", paramLabel = "ADDR",
            description = "with --hostfile: address of rank 0's host the others reach")
    String masterAddr;
    @Option(names = "--bind-to", paramLabel = "core|none|auto", description = "with -np: bind each rank to its own "
            + "block of CPUs (core), or not (none), or core when each rank gets a CPU (auto); default $JCCL_BIND_TO, "
                    + "else auto "
            + "(as mpirun binds by default)")
    String bindTo;
    @Option(names = {"-t", "--nthreads"}, defaultValue = "1", description = "ranks as threads of this process")
    int threads;
    @Option(names = {"-g", "--ngpus"}, defaultValue = "1",
            description = "GPUs driven by this process (more than 1: GPU run)")
    int gpus;
    @Option(names = {"-G", "--cudagraph"}, defaultValue = "0",
            description = "capture the -n iterations into a CUDA graph and time N launches of it")
    int cudaGraph;
    @Option(names = {"-R", "--local_register"}, defaultValue = "0", paramLabel = "0|1|2",
            description = "buffer registration: 0 none; 1 user buffers (NCCL: ncclCommRegister; host: "
                    + "Communicator.allocate, shared memory on one host); 2 symmetric windows (NCCL 2.27+: "
                    + "ncclCommWindowRegister; JCCL: GpuCommunicator windows, so the sym-* kernels run)")
    String register;
    @Option(names = "--compute-beside",
            description = "GPU runs: after each timed loop, run it again beside a compute kernel that fills every SM "
                    + "and print how much of each the other hid (NCCL_CTA_POLICY=2 with -R 2: copy engines)")
    boolean computeBeside;
    @Option(names = "--put-signal",
            description = "sendrecv with -R 1/2 on JCCL: the send is a putSignal into the next rank's window and the"
                    + " receive a waitSignal for the previous rank's (one-sided, as NCCL 2.29's ncclPutSignal)")
    boolean putSignal;
    @Option(names = "--backend",
            description = "host (host memory), jccl (GPUs), nccl (libnccl.so.2 on the same GPU buffers) or both; "
                    + "default host, or jccl with -g > 1 or -G")
    String backend;
    @Option(names = {"-J", "--json", "--output_file"}, description = "write a JSON report to FILE")
    Path json;
    @Option(names = "--csv", description = "write a CSV report to FILE")
    Path csv;
    @Option(names = "--plot",
            description = "write an SVG plot of bus bandwidth against size to FILE (a browser shows it)")
    Path plot;

    private List<String> rawArgs = List.of();
    private Map<String, String> env = System.getenv();
    private PrintStream out = System.out;
    private PrintStream err = System.err;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Parses {@code args} and runs; returns the exit code. */
    public static int run(String[] args) {
        PerfMain main = new PerfMain();
        main.rawArgs = List.of(args);
        return Cli.commandLine(main).execute(args);
    }

    /** The validated options (exposed for tests). */
    PerfOptions options() {
        PerfTarget target = backend != null ? PerfTarget.parse(backend)
                : gpus > 1 || cudaGraph > 0 ? PerfTarget.JCCL : PerfTarget.HOST;
        List<DataType> types = datatype.trim().equalsIgnoreCase("all") ? List.of(DataType.values())
                : List.of(parseType(datatype));
        int rootRank = root.trim().equalsIgnoreCase("all") ? -1 : Integer.parseInt(root.trim());
        return new PerfOptions(PerfCollective.fromName(collective),
                new SizeSweep(SizeParser.parse(minBytes), SizeParser.parse(maxBytes), SizeParser.parse(stepBytes),
                        stepFactor),
                iters, warmup, agg, check, cycles, blocking, PerfBackend.StatMode.fromCode(average), rootRank,
                types, OpChoice.parse(op), timeoutSec, processes, threads, gpus, cudaGraph, computeBeside, putSignal,
                Registration.parse(register), target, json, csv, plot, rawArgs);
    }

    private static DataType parseType(String name) {
        try {
            return DataType.fromName(name);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    @Override
    public Integer call() {
        PerfOptions o;
        try {
            o = options();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        if (o.processes() > 0) {
            return launchProcesses(o);
        }
        boolean fromEnv = EnvironmentRanks.detect(env).isPresent();
        if (fromEnv && o.threads() > 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "-t " + o.threads()
                    + " cannot be used when a launcher started this process as one rank ("
                    + EnvironmentRanks.detect(env).orElseThrow() + " is set)");
        }
        double minBw = minBusBw(env);
        if (o.target().gpu()) {
            return io.jccl.tools.perf.gpu.GpuPerf.run(o, fromEnv ? EnvironmentRanks.localIndex(env) : -1, out, err,
                    minBw);
        }
        if (fromEnv) {
            Communicator comm = Communicator.fromEnvironment(Config.defaults().withName("perf"));
            PerfBackend backend = new HostBackend(comm, EnvironmentRanks.localIndex(env),
                    o.registration() != Registration.NONE);
            return new RankThreads(o, List.of(backend), out, err, minBw).run();
        }
        List<Communicator> comms = Communicator.initAll(o.threads(), Config.defaults().withName("perf"));
        List<PerfBackend> backends = new ArrayList<>();
        for (int i = 0; i < comms.size(); i++) {
            backends.add(new HostBackend(comms.get(i), i, o.registration() != Registration.NONE));
        }
        return new RankThreads(o, backends, out, err, minBw).run();
    }

    /**
     * perf's binding: the option, else JCCL_BIND_TO, else auto (bound when every rank gets a CPU), where {@code ./jccl
     * run} defaults to none. Measured on 2 cores, 2 ranks, 3 rounds of -n 2000 at 8 B-8 KiB: unbound, 7 of 36 cells
     * ran 3.2-8.8x slower than their row's median (both spinning ranks on one core), bound none did; Open MPI's
     * mpirun binds its ranks by default too.
     */
    static String perfBinding(String option, String env) {
        return option != null ? option : env != null && !env.isBlank() ? env : "auto";
    }

    /** {@code -np N}: this command again in N processes, without {@code -np}, rank 0's table unlabelled. */
    private int launchProcesses(PerfOptions o) {
        LaunchSpec spec = LaunchSpec.of(o.processes(), PerfMain.class.getName(), childArgs(rawArgs))
                .withLabels(LaunchSpec.Labels.ALL_BUT_RANK0).withBindTo(perfBinding(bindTo,
                        System.getenv(CoreBinding.ENV)));
        if (hostfile != null) {
            return HostfileJob.create(spec, hostfile, rsh, masterAddr, List.of(), out, err).run().exitCode();
        }
        return new LocalJob(spec, JvmCommandLine.current(), out, err).run().exitCode();
    }

    /** Options of the launching process only: a rank must not launch again. */
    private static final List<String> LAUNCH_OPTIONS = List.of("-np", "--np", "--hostfile", "--rsh", "--master-addr",
            "--bind-to");

    /** {@code args} without {@code -np N} / {@code --np N} / {@code -np=N} and the hostfile options. */
    static List<String> childArgs(List<String> args) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (LAUNCH_OPTIONS.contains(a)) {
                i++;
            } else if (LAUNCH_OPTIONS.stream().noneMatch(o -> a.startsWith(o + "="))) {
                out.add(a);
            }
        }
        return out;
    }

    /** {@code NCCL_TESTS_MIN_BW} in GB/s, or -1 when unset or unparsable. */
    static double minBusBw(Map<String, String> env) {
        String v = env.get("NCCL_TESTS_MIN_BW");
        if (v == null || v.isBlank()) {
            return -1;
        }
        try {
            return Double.parseDouble(v.trim().toLowerCase(Locale.ROOT));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** For tests: a different environment and output streams. */
    PerfMain with(Map<String, String> environment, PrintStream stdout, PrintStream stderr, String... args) {
        this.env = environment;
        this.out = stdout;
        this.err = stderr;
        this.rawArgs = Arrays.asList(args);
        return this;
    }
}
