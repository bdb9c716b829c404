package io.jccl;

import io.jccl.testing.ProcessRanks;
import io.jccl.testing.RankMain;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ranks in separate JVMs on two "hosts" made with NCCL_HOSTID (interleaved: ranks 0 and 2 on host a, 1 and 3 on host
 * b), so shared memory joins the ranks of a host and sockets join the hosts: every collective is right, the ring
 * crosses the network once per host, and a small allReduce runs on the tree.
 */
class HostIdProcessesTest {
    @Test
    void twoHostsOfTwoProcessesRunEveryCollective() throws Exception {
        ProcessRanks.Result r = ProcessRanks.start(4, RankMain.class, List.of("explain"), Map.of(),
                rank -> Map.of("NCCL_HOSTID", rank % 2 == 0 ? "host-a" : "host-b")).await(180);
        assertThat(r.allOk()).as("exit codes %s, output:\n%s", r.exitCodes(), String.join("\n---\n", r.outputs()))
                .isTrue();
        for (int i = 0; i < 4; i++) {
            assertThat(r.outputs().get(i)).contains("OK rank " + i).contains("2 host(s)")
                    .contains("channel 0: ring [0, 2, 1, 3]").contains("AllReduce 4092 bytes -> Tree/Simple");
        }
    }
}
