package io.jccl.tools.perf;

import io.jccl.Collective;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PerfCollectiveTest {

    @Test
    void acceptsNcclTestsNamesBinaryNamesAndVariants() {
        assertThat(PerfCollective.fromName("all_reduce")).isEqualTo(PerfCollective.ALL_REDUCE);
        assertThat(PerfCollective.fromName("all_reduce_perf")).isEqualTo(PerfCollective.ALL_REDUCE);
        assertThat(PerfCollective.fromName("AllReduce")).isEqualTo(PerfCollective.ALL_REDUCE);
        assertThat(PerfCollective.fromName("alltoall_perf")).isEqualTo(PerfCollective.ALL_TO_ALL);
        assertThat(PerfCollective.fromName("all_to_all")).isEqualTo(PerfCollective.ALL_TO_ALL);
        assertThat(PerfCollective.fromName("sendrecv")).isEqualTo(PerfCollective.SEND_RECV);
        assertThat(PerfCollective.fromName("reduce-scatter")).isEqualTo(PerfCollective.REDUCE_SCATTER);
        assertThat(PerfCollective.fromName("scatter_perf")).isEqualTo(PerfCollective.SCATTER);
    }

    @Test
    void unknownNamesListTheAcceptedOnes() {
        assertThatThrownBy(() -> PerfCollective.fromName("hypercube"))
                .hasMessageContaining("hypercube").hasMessageContaining("all_gather, reduce_scatter");
    }

    @Test
    void propertiesFollowNcclTests() {
        assertThat(PerfCollective.ALL_REDUCE.programName()).isEqualTo("all_reduce_perf");
        assertThat(PerfCollective.SEND_RECV.usesOp()).isTrue();
        assertThat(PerfCollective.SEND_RECV.reduces()).isFalse();
        assertThat(PerfCollective.ALL_GATHER.usesOp()).isFalse();
        assertThat(PerfCollective.BROADCAST.rooted()).isTrue();
        assertThat(PerfCollective.ALL_TO_ALL.checksInPlace()).isFalse();
        assertThat(PerfCollective.SEND_RECV.checksInPlace()).isFalse();
        assertThat(PerfCollective.GATHER.checksInPlace()).isTrue();
        assertThat(PerfCollective.REDUCE.resultOnRootOnly()).isTrue();
        assertThat(PerfCollective.SCATTER.collective()).isEqualTo(Collective.SCATTER);
    }
}
