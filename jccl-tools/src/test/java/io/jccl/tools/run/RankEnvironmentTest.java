package io.jccl.tools.run;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RankEnvironmentTest {

    @Test
    void rankVariables() {
        RankEnvironment env = new RankEnvironment("127.0.0.1", 29500, "ab".repeat(32), 4);
        assertThat(env.forRank(2)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "RANK", "2", "WORLD_SIZE", "4", "LOCAL_RANK", "2", "LOCAL_WORLD_SIZE", "4",
                "MASTER_ADDR", "127.0.0.1", "MASTER_PORT", "29500", "JCCL_COMM_ID", "127.0.0.1:29500",
                "JCCL_COMM_SECRET", "ab".repeat(32)));
        assertThatThrownBy(() -> env.forRank(4)).hasMessageContaining("out of range");
    }

    @Test
    void foreignLauncherVariablesAreRemovedOthersKept() {
        RankEnvironment env = new RankEnvironment("127.0.0.1", 1234, "0".repeat(64), 2);
        Map<String, String> child = new HashMap<>(Map.of("OMPI_COMM_WORLD_RANK", "5", "OMPI_COMM_WORLD_SIZE", "8",
                "SLURM_PROCID", "3", "NCCL_COMM_ID", "h:1", "PMI_RANK", "1", "PATH", "/bin", "NCCL_DEBUG", "INFO",
                "RANK", "9"));
        env.applyTo(child, 1);
        assertThat(child).doesNotContainKeys("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "SLURM_PROCID",
                "NCCL_COMM_ID", "PMI_RANK");
        assertThat(child).containsEntry("PATH", "/bin").containsEntry("NCCL_DEBUG", "INFO").containsEntry("RANK", "1");
    }

    @Test
    void createdEnvironmentsHaveAFreshSecretAndAFreePort() throws IOException {
        RankEnvironment a = RankEnvironment.create(2);
        RankEnvironment b = RankEnvironment.create(2);
        assertThat(a.secretHex()).matches("[0-9a-f]{64}").isNotEqualTo(b.secretHex());
        try (ServerSocket s = new ServerSocket(a.masterPort(), 1, InetAddress.getByName("127.0.0.1"))) {
            assertThat(s.getLocalPort()).isEqualTo(a.masterPort());
        }
    }

    @Test
    void rejectsMalformedValues() {
        assertThatThrownBy(() -> new RankEnvironment("127.0.0.1", 0, "0".repeat(64), 2)).hasMessageContaining("port");
        assertThatThrownBy(() -> new RankEnvironment("127.0.0.1", 1, "xyz", 2)).hasMessageContaining("64 hex");
        assertThatThrownBy(() -> new RankEnvironment("127.0.0.1", 1, "0".repeat(64), 0)).hasMessageContaining("world");
    }
}
