package io.jccl.tools.demo;

import io.jccl.Jccl;
import io.jccl.tools.Cli;
import io.jccl.tools.perf.PerfMain;
import io.jccl.tools.run.LaunchSpec;
import io.jccl.tools.run.LocalJob;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * {@code jccl demo [-np N]}: starts N local processes of {@link AllReduceDemo} through the launcher (every line
 * labelled with its rank), then, if every rank got the right sums, a short all_reduce perf table over the same
 * number of processes. Runs on the main thread.
 */
@Command(name = "jccl demo", mixinStandardHelpOptions = true,
        versionProvider = io.jccl.tools.JcclVersion.class,
        description = {"Runs NCCL's classic example with N local processes: each rank r contributes {r, r+1}, "
                + "allReduce sums them, every rank prints what it received; then a short all_reduce perf table."})
public final class DemoMain implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The perf arguments of the table after the demo. */
    static final List<String> PERF_ARGS = List.of("all_reduce", "-b", "8", "-e", "1M", "-f", "4", "-n", "20",
            "-w", "5", "-c", "1");

    @Option(names = {"-np", "-n"}, defaultValue = "4", description = "number of ranks (default ${DEFAULT-VALUE})")
    int nRanks;

    @Option(names = "--timeout", defaultValue = "300",
            description = "stop a stage after S seconds (default ${DEFAULT-VALUE})")
    long timeoutSec;

    @Option(names = "--no-perf", description = "skip the perf table")
    boolean noPerf;

    private final Function<LaunchSpec, Integer> launcher;

    public DemoMain() {
        this(spec -> LocalJob.run(spec).exitCode());
    }

    /** With another way to run a launch (tests). */
    DemoMain(Function<LaunchSpec, Integer> launcher) {
        this.launcher = launcher;
    }

    public static void main(String[] args) {
        System.exit(Cli.commandLine(new DemoMain()).execute(args));
    }

    @Override
    public Integer call() {
        if (nRanks < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "-np must be at least 1, got " + nRanks);
        }
        System.out.printf("# JCCL demo: AllReduce (sum) of {rank, rank+1} over %d local processes%n", nRanks);
        int code = launcher.apply(demoSpec());
        if (code != 0) {
            System.err.println("jccl demo: the AllReduce demo failed (exit code " + code + ")");
            return code;
        }
        if (noPerf) {
            return 0;
        }
        System.out.printf("%n# jccl perf %s -np %d%n", String.join(" ", PERF_ARGS), nRanks);
        return launcher.apply(perfSpec());
    }

    LaunchSpec demoSpec() {
        return LaunchSpec.of(nRanks, AllReduceDemo.class.getName(), List.of())
                .withTimeout(Duration.ofSeconds(timeoutSec));
    }

    LaunchSpec perfSpec() {
        return LaunchSpec.of(nRanks, PerfMain.class.getName(), PERF_ARGS)
                .withLabels(LaunchSpec.Labels.ALL_BUT_RANK0)
                .withTimeout(Duration.ofSeconds(timeoutSec));
    }
}
