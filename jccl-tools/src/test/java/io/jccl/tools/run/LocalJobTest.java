package io.jccl.tools.run;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Real child JVMs running {@link TestRank}. */
class LocalJobTest {

    record Outcome(LaunchResult result, String out, String err, long millis) {
    }

    static Outcome launch(LaunchSpec spec) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        LaunchResult r = new LocalJob(spec, JvmCommandLine.current(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run();
        return new Outcome(r, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                (System.nanoTime() - t0) / 1_000_000);
    }

    private static LaunchSpec spec(int n, String... args) {
        return LaunchSpec.of(n, TestRank.class.getName(), List.of(args));
    }

    @Test
    void everyRankGetsTheTorchrunStyleEnvironmentAndLabelledOutput() {
        Outcome o = launch(spec(3, "env").withExtraEnv(Map.of("EXTRA", "yes")));
        assertThat(o.result().succeeded()).as(o.err()).isTrue();
        assertThat(o.result().rankExitCodes()).containsExactly(0, 0, 0);
        List<String> lines = o.out().lines().toList();
        for (int r = 0; r < 3; r++) {
            String p = "[" + r + "] ";
            assertThat(lines).contains(p + "RANK=" + r, p + "WORLD_SIZE=3", p + "LOCAL_RANK=" + r,
                    p + "LOCAL_WORLD_SIZE=3", p + "MASTER_ADDR=127.0.0.1", p + "OMPI_COMM_WORLD_RANK=null",
                    p + "EXTRA=yes", p + "no newline at the end");
            assertThat(o.err()).contains(p + "a line on stderr");
        }
        assertThat(o.err()).doesNotContain("incubator");
        Map<String, String> values = lines.stream().filter(l -> l.startsWith("[0] ") && l.contains("="))
                .map(l -> l.substring(4).split("=", 2)).collect(Collectors.toMap(a -> a[0], a -> a[1]));
        assertThat(values.get("JCCL_COMM_ID")).isEqualTo("127.0.0.1:" + values.get("MASTER_PORT"));
        assertThat(values.get("JCCL_COMM_SECRET")).matches("[0-9a-f]{64}");
        // every rank has the same port and secret
        assertThat(lines.stream().filter(l -> l.contains("JCCL_COMM_SECRET=")).map(l -> l.substring(4)).distinct())
                .hasSize(1);
        assertThat(lines.stream().filter(l -> l.contains("MASTER_PORT=")).map(l -> l.substring(4)).distinct())
                .hasSize(1);
    }

    @Test
    void ranksAreBoundToDisjointBlocksOfCpusOrLeftFloating() {
        io.jccl.internal.topology.CpuSet mine = io.jccl.internal.topology.CpuSet.ofThisProcess();
        org.junit.jupiter.api.Assumptions.assumeTrue(mine.size() >= 2, "needs 2 CPUs, has " + mine);
        org.junit.jupiter.api.Assumptions.assumeTrue(
                CoreBinding.forLocalJob("core", 2, System.err).cpus().size() == 2, "taskset is not installed");
        Outcome bound = launch(spec(2, "cpus").withBindTo("core"));
        assertThat(bound.result().succeeded()).as(bound.err()).isTrue();
        assertThat(bound.err()).contains("jccl run: ranks bound to CPUs ");
        List<String> sets = bound.out().lines().filter(l -> l.contains("CPUS="))
                .map(l -> l.substring(l.indexOf("CPUS=") + 5, l.indexOf(" PROCS="))).toList();
        assertThat(sets).hasSize(2).doesNotHaveDuplicates();
        List<io.jccl.internal.topology.CpuSet> parsed = sets.stream().map(io.jccl.internal.topology.CpuSet::parse).toList();
        assertThat(io.jccl.internal.topology.CpuSet.union(parsed).size())
                .as("disjoint blocks of %s", mine).isEqualTo(parsed.get(0).size() + parsed.get(1).size());
        assertThat(parsed.get(0).size()).isEqualTo(mine.size() / 2);
        assertThat(bound.out()).contains("PROCS=" + mine.size() / 2);

        Outcome floating = launch(spec(2, "cpus").withBindTo("none"));
        assertThat(floating.err()).doesNotContain("bound to CPUs");
        assertThat(floating.out().lines().filter(l -> l.contains("CPUS=" + mine + " "))).hasSize(2);
    }

    @Test
    void aFailingRankStopsTheOthersAndIsNamed() {
        Outcome o = launch(spec(3, "fail", "1", "3"));
        assertThat(o.result().exitCode()).isEqualTo(3);
        assertThat(o.result().failedRank()).isEqualTo(1);
        assertThat(o.result().failedExitCode()).isEqualTo(3);
        assertThat(o.result().timedOut()).isFalse();
        assertThat(o.err()).contains("jccl run: rank 1 exited with code 3; stopping the other 2 rank(s)");
        assertThat(o.millis()).as("the sleeping ranks were stopped, not waited for").isLessThan(20_000);
        assertThat(o.result().rankExitCodes().get(0)).isNotZero();
    }

    @Test
    void ranksThatIgnoreSigtermAreKilledAfterTheGracePeriod() {
        Outcome o = launch(spec(2, "stubborn", "0", "7"));
        assertThat(o.result().exitCode()).isEqualTo(7);
        assertThat(o.result().failedRank()).isZero();
        assertThat(o.millis()).isLessThan(25_000);
        assertThat(o.result().rankExitCodes().get(1)).isEqualTo(137);   // SIGKILL
    }

    @Test
    void theTimeoutStopsEveryRank() {
        Outcome o = launch(spec(2, "sleep").withTimeout(Duration.ofSeconds(2)));
        assertThat(o.result().timedOut()).isTrue();
        assertThat(o.result().exitCode()).isEqualTo(LaunchResult.TIMEOUT_EXIT_CODE);
        assertThat(o.err()).contains("jccl run: timeout after 2 s");
        assertThat(o.millis()).isLessThan(20_000);
    }

    @Test
    void rankZeroCanPrintUnlabelled() {
        Outcome o = launch(spec(2, "env").withLabels(LaunchSpec.Labels.ALL_BUT_RANK0));
        assertThat(o.out().lines()).contains("RANK=0", "[1] RANK=1");
    }

    @Test
    void anExitCodeOutsideTheByteRangeIsReportedAsOne() {
        Outcome o = launch(spec(1, "exit", "0"));
        assertThat(o.result().succeeded()).isTrue();
        LaunchResult r = new LaunchResult(1, 0, 300, false, List.of(300));
        assertThat(r.succeeded()).isFalse();
    }

    @Test
    void aMissingMainClassFailsTheRank() {
        Outcome o = launch(LaunchSpec.of(1, "io.jccl.NoSuchClass", List.of()));
        assertThat(o.result().exitCode()).isEqualTo(1);
        assertThat(o.err()).contains("[0] ").contains("NoSuchClass");
    }
}
