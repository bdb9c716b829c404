package io.jccl.examples;

import io.jccl.tools.run.JvmCommandLine;
import io.jccl.tools.run.LaunchResult;
import io.jccl.tools.run.LaunchSpec;
import io.jccl.tools.run.LocalJob;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Each host example started the way {@code ./jccl run -np N <class> args} starts it: N JVMs, one rank each. */
class LaunchedExamplesTest {

    @ParameterizedTest(name = "{0} on {1} processes")
    @CsvSource(delimiter = ';', value = {
        "AllReduceExample;2;20000;[1] Device 1 correctly received sum: 3",
        "LaunchedAllReduce;2;1000;[1] Device 1 correctly received sum: 3",
        "BroadcastExample;2;1000 1;[0] Rank 0 received 1000 doubles from root 1: correct",
        "RingExchangeExample;3;256;[2] Rank 2: sum of every rank's data 3 (correct)",
        "SuspendResumeExample;2;50000;[1] Rank 1: allReduce before suspend and after resume correct",
        "SplitExample;4;;[3] World rank 3 is rank 1 of 2 in the odd communicator: sum 4, world sum 6 (correct)",
        "ThreadsExample;1;3;[0] Thread of rank 1 received sums 3 and 6: correct"})
    void runsUnderTheLauncher(String example, int ranks, String args, String expectedLine) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> argv = args == null || args.isBlank() ? List.of() : Arrays.asList(args.split(" "));
        LaunchSpec spec = LaunchSpec.of(ranks, "io.jccl.examples." + example, argv).withTimeout(Duration.ofSeconds(120));
        LaunchResult r = new LocalJob(spec, JvmCommandLine.current(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run();
        String stdout = out.toString(StandardCharsets.UTF_8);
        assertThat(r.exitCode()).as("stdout:%n%s%nstderr:%n%s", stdout, err).isZero();
        assertThat(stdout.lines()).contains(expectedLine);
    }
}
