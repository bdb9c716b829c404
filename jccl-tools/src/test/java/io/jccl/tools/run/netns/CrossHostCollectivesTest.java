package io.jccl.tools.run.netns;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every collective across namespace "hosts" (socket transport between hosts, shared memory within), launched by
 * the hostfile launcher with {@code ip netns exec} as the remote shell and NCCL_SOCKET_IFNAME naming the veths.
 * Needs root (skipped otherwise; CI runs as root). The namespaces are removed even when a job fails.
 */
class CrossHostCollectivesTest {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void everyCollectiveIsExactAcrossTwoHostsWithTwoRanksEach() {
        try (NetnsHosts hosts = NetnsHosts.create(2, null)) {
            HostJobs.Outcome o = HostJobs.run(hosts, dir, 2, JOB_TIMEOUT, Map.of("NCCL_DEBUG", "INFO",
                    "NCCL_DEBUG_SUBSYS", "INIT"), "all");
            assertAllOk(o, 4);
            // the hosts really are different hosts to JCCL: sockets between them, shared memory within
            assertThat(o.err()).contains("nNodes 2 localRanks 2").contains("via NET/Socket").contains("via SHM");
        }
    }

    @Test
    void everyCollectiveIsExactAcrossThreeHostsOnTenGigabitLinks() {
        try (NetnsHosts hosts = NetnsHosts.create(3, "10gbit")) {
            HostJobs.Outcome o = HostJobs.run(hosts, dir, 2, JOB_TIMEOUT, Map.of(), "all");
            assertAllOk(o, 6);
        }
    }

    private static void assertAllOk(HostJobs.Outcome o, int nRanks) {
        assertThat(o.result().exitCode()).as(o.all()).isZero();
        assertThat(o.out()).doesNotContain("WRONG").doesNotContain("JCCL_ERROR");
        for (int r = 0; r < nRanks; r++) {
            assertThat(o.out()).as(o.all()).contains("[" + r + "] ALL OK " + nRanks + " ranks, local " + (r % 2) + "/2");
            for (String coll : new String[]{"allReduce", "broadcast", "reduce", "allGather", "reduceScatter",
                    "allToAll", "gather", "scatter", "sendRecv"}) {
                assertThat(o.out()).contains("[" + r + "] OK " + coll + " ");
            }
        }
    }
}
