package io.jccl.spark;

import io.jccl.launch.Placement;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link SparkJccl#placement(int, String[])}: local ranks and sizes from the barrier tasks' addresses. */
class PlacementTest {
    @Test
    void tasksOnOneHostAreCountedInRankOrder() {
        String[] addresses = {"10.0.0.1:7001", "10.0.0.2:7001", "10.0.0.1:7002", "10.0.0.2:7001", "10.0.0.1:7001"};
        assertThat(SparkJccl.placement(0, addresses)).isEqualTo(new Placement(0, 5, 0, 3, "spark"));
        assertThat(SparkJccl.placement(2, addresses)).isEqualTo(new Placement(2, 5, 1, 3, "spark"));
        assertThat(SparkJccl.placement(4, addresses)).isEqualTo(new Placement(4, 5, 2, 3, "spark"));
        assertThat(SparkJccl.placement(3, addresses)).isEqualTo(new Placement(3, 5, 1, 2, "spark"));
    }

    @Test
    void hostsWithAndWithoutPortsAndIpv6() {
        assertThat(SparkJccl.host("node1:4040")).isEqualTo("node1");
        assertThat(SparkJccl.host("node1")).isEqualTo("node1");
        assertThat(SparkJccl.host("[fe80::1]:4040")).isEqualTo("fe80::1");
        assertThat(SparkJccl.host("fe80::1")).isEqualTo("fe80::1");
        String[] addresses = {"[fe80::1]:1", "[fe80::1]:2", "[fe80::2]:1"};
        assertThat(SparkJccl.placement(1, addresses).localRank()).isEqualTo(1);
        assertThat(SparkJccl.placement(2, addresses).localSize()).isEqualTo(1);
    }

    @Test
    void aPartitionBeyondTheTaskCountIsRefused() {
        assertThatThrownBy(() -> SparkJccl.placement(4, new String[] {"a:1", "a:2"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partition 4 is not in [0, 2)");
    }
}
