package io.jccl.tools.run;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hostfile launcher end to end on this host: {@code env} plays the remote shell, and the "host names" are
 * variable assignments it applies, so each rank can tell which host it was sent to.
 */
class RemoteRanksTest {

    private static LocalJobTest.Outcome launch(int n, String hostfile, Map<String, String> launcherEnv,
                                               String... args) {
        RankPlacement placement = RankPlacement.bySlot(Hostfile.parse(hostfile, "t"), n);
        RemoteRanks ranks = new RemoteRanks(placement, RemoteShell.parse("env"), launcherEnv, Set.of("EXTRA"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        LaunchResult r = new LocalJob(LaunchSpec.of(n, TestRank.class.getName(), List.of(args)),
                JvmCommandLine.current(), ranks, RankEnvironment.create(n, "127.0.0.1"),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .run();
        return new LocalJobTest.Outcome(r, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    void ranksGetHostLocalIndicesForwardedVariablesAndTheSecret() {
        LocalJobTest.Outcome o = launch(3, "TEST_HOST=a slots=2\nTEST_HOST=b\n",
                Map.of("NCCL_PROTO", "Simple", "EXTRA", "yes", "UNRELATED", "no", "OMPI_COMM_WORLD_RANK", "9"), "env");
        assertThat(o.result().succeeded()).as(o.err()).isTrue();
        List<String> lines = o.out().lines().toList();
        assertThat(lines).contains("[0] TEST_HOST=a", "[1] TEST_HOST=a", "[2] TEST_HOST=b",
                "[0] LOCAL_RANK=0", "[1] LOCAL_RANK=1", "[2] LOCAL_RANK=0",
                "[0] LOCAL_WORLD_SIZE=2", "[2] LOCAL_WORLD_SIZE=1", "[2] RANK=2", "[2] WORLD_SIZE=3",
                "[1] NCCL_PROTO=Simple", "[1] EXTRA=yes", "[1] OMPI_COMM_WORLD_RANK=null",
                "[0] NCCL_HOSTID=TEST_HOST=a", "[1] NCCL_HOSTID=TEST_HOST=a", "[2] NCCL_HOSTID=TEST_HOST=b");
        assertThat(lines.stream().filter(l -> l.contains("JCCL_COMM_SECRET=")).map(l -> l.substring(4)).distinct()
                .toList()).singleElement().asString().matches("JCCL_COMM_SECRET=[0-9a-f]{64}");
        assertThat(o.err()).doesNotContain("job status");
    }

    @Test
    void aFailingRemoteRankStopsTheOthersAndIsNamedWithItsHost() {
        LocalJobTest.Outcome o = launch(3, "TEST_HOST=a slots=2\nTEST_HOST=b\n", Map.of(), "fail", "2", "5");
        assertThat(o.result().exitCode()).isEqualTo(5);
        assertThat(o.result().failedRank()).isEqualTo(2);
        assertThat(o.err()).contains("jccl run: rank 2 exited with code 5 (host TEST_HOST=b); stopping the other 2");
        assertThat(o.millis()).as("the sleeping ranks were stopped, not waited for").isLessThan(20_000);
    }

    @Test
    void theCommandLineRunsAHostfileJob(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path hosts = java.nio.file.Files.writeString(dir.resolve("hosts"), "TEST_HOST=a slots=2\n");
        int code = Launcher.commandLine().execute("--hostfile", hosts.toString(), "--rsh", "env", "--master-addr",
                "127.0.0.1", "-np", "2", TestRank.class.getName(), "exit", "6");
        assertThat(code).isEqualTo(6);
    }

    @Test
    void rankZerosHostMustResolveToAnAddressTheOthersReach() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HostfileJob.resolve("localhost", false))
                .hasMessageContaining("loopback");
        assertThat(HostfileJob.resolve("localhost", true)).isIn("127.0.0.1", "0:0:0:0:0:0:0:1");
    }

    @Test
    void onlyNcclJcclAndNamedVariablesAreForwarded() {
        Map<String, String> f = RemoteRanks.forwardable(Map.of("NCCL_DEBUG", "INFO", "JCCL_TIMEOUT_MS", "5",
                "JCCL_RSH", "ssh", "NCCL_COMM_ID", "x:1", "PATH", "/bin", "MY_VAR", "1"), Set.of("MY_VAR"));
        assertThat(f).containsOnlyKeys("NCCL_DEBUG", "JCCL_TIMEOUT_MS", "MY_VAR");
    }
}
