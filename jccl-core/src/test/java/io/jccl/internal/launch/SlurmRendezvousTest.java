package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.UniqueId;
import io.jccl.launch.Placement;
import io.jccl.launch.Rendezvous;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SlurmRendezvousTest {
    private final SlurmRendezvous slurm = new SlurmRendezvous();

    /** What srun --mpi=none exports to task {@code rank} of 4 tasks on 2 nodes, 2 each. */
    private static Map<String, String> task(int rank) {
        Map<String, String> env = new HashMap<>();
        env.put("SLURM_PROCID", String.valueOf(rank));
        env.put("SLURM_NTASKS", "4");
        env.put("SLURM_LOCALID", String.valueOf(rank % 2));
        env.put("SLURM_NODEID", String.valueOf(rank / 2));
        env.put("SLURM_TASKS_PER_NODE", "2(x2)");
        env.put("SLURM_STEP_NODELIST", "localhost,node[2-3]");
        env.put("SLURM_NODELIST", "login,localhost,node[2-3]");
        env.put("SLURM_JOB_ID", "1234");
        env.put("SLURM_STEP_ID", "2");
        return env;
    }

    @Test
    void detectedUnderSrunWithANodeList() {
        assertThat(slurm.detect(task(0))).isTrue();
        Map<String, String> jobList = task(0);
        jobList.remove("SLURM_STEP_NODELIST");
        jobList.remove("SLURM_NODELIST");
        jobList.put("SLURM_JOB_NODELIST", "localhost");
        assertThat(slurm.detect(jobList)).isTrue();
        Map<String, String> none = task(0);
        none.remove("SLURM_STEP_NODELIST");
        none.remove("SLURM_NODELIST");
        assertThat(slurm.detect(none)).isFalse();
        assertThat(slurm.detect(Map.of("SLURM_NODELIST", "a", "SLURM_NTASKS", "2"))).isFalse();
        assertThat(slurm.priority()).isLessThan(new PmixRendezvous().priority());
    }

    @Test
    void placementReadsSlurmsVariablesOnly() {
        Map<String, String> env = task(3);
        env.put("RANK", "0");
        env.put("WORLD_SIZE", "1");
        assertThat(slurm.placement(env)).isEqualTo(new Placement(3, 4, 1, 2, "srun (Slurm)"));
    }

    @Test
    void theRootIsTheStepsFirstHostOnAPortOfTheJobAndStep() {
        int port = SlurmRendezvous.derivedPort(1234, 2);
        assertThat(port).isEqualTo(SlurmRendezvous.PORT_BASE + (1234 * 16 + 2) % SlurmRendezvous.PORT_SPAN);
        assertThat(SlurmRendezvous.rootAddress(task(2), 2)).isEqualTo("localhost:" + port);
        assertThat(SlurmRendezvous.derivedPort(1234, 3)).isEqualTo(port + 1);
        assertThat(SlurmRendezvous.derivedPort(1234, 4294967294L)).isBetween(SlurmRendezvous.PORT_BASE,
                SlurmRendezvous.PORT_BASE + SlurmRendezvous.PORT_SPAN - 1);
        Map<String, String> env = task(1);
        env.put("MASTER_PORT", "29400");
        assertThat(SlurmRendezvous.rootAddress(env, 1)).isEqualTo("localhost:29400");
        env.put("MASTER_ADDR", "127.0.0.1");
        assertThat(SlurmRendezvous.rootAddress(env, 1)).isEqualTo("127.0.0.1:29400");
    }

    @Test
    void everyTaskDerivesTheSameIdAsTheAddressWay() {
        UniqueId one = slurm.shareId(slurm.placement(task(1)), task(1));
        UniqueId three = slurm.shareId(slurm.placement(task(3)), task(3));
        assertThat(one).isEqualTo(three);
        assertThat(one).isEqualTo(AddressRendezvous.idFor("localhost:" + SlurmRendezvous.derivedPort(1234, 2)));
    }

    @Test
    void taskZeroOffTheFirstHostIsRefusedClearly() {
        Map<String, String> env = task(0);
        env.put("SLURM_NODEID", "1");
        assertThatThrownBy(() -> SlurmRendezvous.rootAddress(env, 0)).isInstanceOf(JcclException.class)
                .hasMessageContaining("task 0 runs on node 1").hasMessageContaining("localhost")
                .hasMessageContaining("SLURM_STEP_NODELIST").hasMessageContaining("MASTER_ADDR");
        env.put("MASTER_ADDR", "127.0.0.1");
        assertThat(SlurmRendezvous.rootAddress(env, 0)).startsWith("127.0.0.1:");
    }

    @Test
    void missingIdsOrABadPortAreNamed() {
        Map<String, String> env = task(1);
        env.remove("SLURM_STEP_ID");
        assertThatThrownBy(() -> SlurmRendezvous.port(env)).isInstanceOf(JcclException.class)
                .hasMessageContaining("SLURM_STEP_ID").hasMessageContaining("JCCL_ROOT_PORT");
        env.put("SLURM_STEPID", "0");
        assertThat(SlurmRendezvous.port(env)).isEqualTo(SlurmRendezvous.derivedPort(1234, 0));
        env.put("MASTER_PORT", "70000");
        assertThatThrownBy(() -> SlurmRendezvous.port(env)).isInstanceOf(JcclException.class)
                .hasMessageContaining("MASTER_PORT=70000");
    }

    @Test
    void registeredAndChosenByPriority() {
        assertThat(Rendezvouses.builtIn()).extracting(Rendezvous::name).contains("pmix", "slurm");
        assertThat(Rendezvouses.detect(task(0)).name()).isEqualTo("slurm");
    }
}
