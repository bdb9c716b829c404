package io.jccl.tools.perf;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class EnvironmentRanksTest {

    @Test
    void recognisesEveryLauncher() {
        assertThat(EnvironmentRanks.detect(Map.of())).isEmpty();
        assertThat(EnvironmentRanks.detect(Map.of("JCCL_COMM_ID", "127.0.0.1:1234"))).contains("JCCL_COMM_ID");
        assertThat(EnvironmentRanks.detect(Map.of("NCCL_COMM_ID", "h:1"))).contains("NCCL_COMM_ID");
        assertThat(EnvironmentRanks.detect(Map.of("RANK", "1", "WORLD_SIZE", "2"))).contains("RANK/WORLD_SIZE");
        assertThat(EnvironmentRanks.detect(Map.of("RANK", "1"))).isEmpty();
        assertThat(EnvironmentRanks.detect(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "4")))
                .contains("OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE");
        assertThat(EnvironmentRanks.detect(Map.of("SLURM_PROCID", "3", "SLURM_NTASKS", "8")))
                .contains("SLURM_PROCID/SLURM_NTASKS");
    }

    @Test
    void localIndexPrefersLocalRank() {
        assertThat(EnvironmentRanks.localIndex(Map.of())).isZero();
        assertThat(EnvironmentRanks.localIndex(Map.of("LOCAL_RANK", "3", "SLURM_LOCALID", "1"))).isEqualTo(3);
        assertThat(EnvironmentRanks.localIndex(Map.of("OMPI_COMM_WORLD_LOCAL_RANK", "2"))).isEqualTo(2);
        assertThat(EnvironmentRanks.localIndex(Map.of("LOCAL_RANK", "x", "SLURM_LOCALID", "5"))).isEqualTo(5);
    }
}
