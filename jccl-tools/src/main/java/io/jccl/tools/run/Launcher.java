package io.jccl.tools.run;

import io.jccl.Jccl;
import io.jccl.tools.Cli;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code jccl run -np N [-cp CP] [--timeout S] [--hostfile F [--rsh CMD] [--master-addr A] [-x NAME]] [--]
 * <main class> [args...]}: starts N JVMs of a main class, locally or on the hosts of a hostfile, each with the rank
 * environment a torchrun/mpirun user expects, and supervises them (see {@link LocalJob}, {@link RemoteRanks}).
 * The command line front end, run on the main thread; Java callers use {@link LocalJob} and {@link LaunchSpec}
 * directly. Mirrors {@code mpirun -np N} / {@code torchrun --nproc-per-node N} on one host.
 */
@Command(name = "jccl run", mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = io.jccl.tools.JcclVersion.class,
        description = {"Starts N local ranks of a Java main class with RANK, WORLD_SIZE, LOCAL_RANK, "
                + "LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, JCCL_COMM_ID and JCCL_COMM_SECRET set, so that "
                + "Communicator.fromEnvironment() joins them. Output lines are prefixed with the rank. If a rank "
                + "fails, the others are stopped and the launcher exits with that rank's code."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:every rank exited 0", "N:the first failing rank's exit code",
                "124:the --timeout passed", "2:bad arguments"})
public final class Launcher implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-np", "-n", "--nproc"}, required = true, paramLabel = "N",
            description = "number of ranks (processes) to start")
    int nRanks;

    @Option(names = {"-cp", "--classpath"}, paramLabel = "PATH",
            description = "classpath entries added after JCCL's own (separated by '${sys:path.separator}')")
    String classpath;

    @Option(names = "--timeout", paramLabel = "S", description = "stop every rank and fail after S seconds")
    double timeoutSeconds;

    @Option(names = {"--hostfile", "--machinefile"}, paramLabel = "FILE",
            description = "run the ranks on the hosts of FILE (Open MPI format: 'host slots=N' per line), filling "
                    + "each host's slots in order, started through the remote shell (--rsh)")
    Path hostfile;

    @Option(names = "--rsh", paramLabel = "CMD",
            description = "remote shell for --hostfile (default: $JCCL_RSH, else '" + RemoteShell.DEFAULT + "'); "
                    + "'ip netns exec' runs ranks in network namespaces named in the hostfile")
    String rsh;

    @Option(names = "--master-addr", paramLabel = "ADDR",
            description = "with --hostfile: the address of rank 0's host that every rank reaches (default: rank 0's "
                    + "host name resolved here)")
    String masterAddr;

    @Option(names = "-x", paramLabel = "NAME",
            description = "with --hostfile: also forward this environment variable (NCCL_* and JCCL_* always are)")
    List<String> exports = new ArrayList<>();

    @Option(names = "--bind-to", paramLabel = "core|none|auto",
            description = "local ranks: core gives each an equal block of this machine's CPUs (taskset), none lets "
                    + "them float; auto binds when every rank gets a CPU; default $" + CoreBinding.ENV + ", else none")
    String bindTo;

    @Parameters(index = "0", paramLabel = "MAIN_CLASS", description = "fully qualified main class of every rank")
    String mainClass;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "arguments given to every rank")
    List<String> args = new ArrayList<>();

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The picocli command line: everything after the main class belongs to the ranks. */
    static CommandLine commandLine() {
        return Cli.commandLine(new Launcher()).setStopAtPositional(true);
    }

    @Override
    public Integer call() {
        if (nRanks < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "-np must be at least 1, got " + nRanks);
        }
        LaunchSpec spec = toSpec();
        LaunchResult result = hostfile == null ? LocalJob.run(spec) : remoteJob(spec).run();
        return result.exitCode();
    }

    /** The job on the hosts of the hostfile. */
    LocalJob remoteJob(LaunchSpec launchSpec) {
        try {
            return HostfileJob.create(launchSpec, hostfile, rsh, masterAddr, exports, System.out, System.err);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    LaunchSpec toSpec() {
        try {
            CoreBinding.Policy.parse(bindTo);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        List<String> cp = classpath == null || classpath.isBlank() ? List.of()
                : Arrays.stream(classpath.split(File.pathSeparator)).filter(s -> !s.isBlank()).toList();
        Duration timeout = timeoutSeconds > 0 ? Duration.ofMillis(Math.round(timeoutSeconds * 1000)) : null;
        return new LaunchSpec(nRanks, mainClass, args, cp, timeout, LaunchSpec.Labels.ALL, Map.of(), bindTo);
    }
}
