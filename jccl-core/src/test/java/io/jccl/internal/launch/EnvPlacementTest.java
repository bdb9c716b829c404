package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.launch.Placement;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EnvPlacementTest {
    @Test
    void torchrunGivesLocalRankAndSize() {
        Placement p = EnvPlacement.find(Map.of("RANK", "5", "WORLD_SIZE", "8", "LOCAL_RANK", "1",
                "LOCAL_WORLD_SIZE", "4")).orElseThrow();
        assertThat(p).isEqualTo(new Placement(5, 8, 1, 4, "torchrun"));
    }

    @Test
    void openMpiAndSlurmAreRead() {
        assertThat(EnvPlacement.find(Map.of("OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE", "4",
                "OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "2")).orElseThrow())
                .isEqualTo(new Placement(3, 4, 1, 2, "mpirun (Open MPI)"));
        assertThat(EnvPlacement.find(Map.of("SLURM_PROCID", "6", "SLURM_NTASKS", "7", "SLURM_LOCALID", "0",
                "SLURM_NODEID", "3", "SLURM_TASKS_PER_NODE", "2(x3),1")).orElseThrow())
                .isEqualTo(new Placement(6, 7, 0, 1, "srun (Slurm)"));
    }

    @Test
    void unknownLocalRankIsMinusOne() {
        Placement p = EnvPlacement.find(Map.of("PMI_RANK", "0", "PMI_SIZE", "2")).orElseThrow();
        assertThat(p.localRank()).isEqualTo(-1);
        assertThat(p.localRankOr(7)).isEqualTo(7);
    }

    @Test
    void aRankOutsideTheSizeIsRefusedByName() {
        assertThatThrownBy(() -> EnvPlacement.find(Map.of("RANK", "4", "WORLD_SIZE", "4")))
                .isInstanceOf(JcclException.class).hasMessageContaining("RANK=4");
        assertThat(EnvPlacement.find(Map.of("PATH", "/bin"))).isEmpty();
    }

    @Test
    void slurmHostListsExpand() {
        assertThat(SlurmHosts.expand("node[01-03,07],login1")).containsExactly("node01", "node02", "node03",
                "node07", "login1");
        assertThat(SlurmHosts.expand("a[1-2]-b[8-9]")).containsExactly("a1-b8", "a1-b9", "a2-b8", "a2-b9");
        assertThat(SlurmHosts.expand("single")).isEqualTo(List.of("single"));
        assertThatThrownBy(() -> SlurmHosts.expand("node[3-1]")).isInstanceOf(JcclException.class);
        assertThatThrownBy(() -> SlurmHosts.expand("node[1-2")).isInstanceOf(JcclException.class);
    }

    @Test
    void slurmTasksPerNode() {
        assertThat(SlurmHosts.localTasks("2(x3),1", 0)).isEqualTo(2);
        assertThat(SlurmHosts.localTasks("2(x3),1", 2)).isEqualTo(2);
        assertThat(SlurmHosts.localTasks("2(x3),1", 3)).isEqualTo(1);
        assertThat(SlurmHosts.localTasks("2(x3),1", 4)).isEqualTo(-1);
        assertThat(SlurmHosts.localTasks(null, 0)).isEqualTo(-1);
    }
}
