package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.internal.topology.CpuArch;
import io.jccl.internal.topology.CpuVendor;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.topology.search.GraphInfo;
import io.jccl.internal.topology.search.GraphPattern;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class HostCostModelTest {
    private static final int AR = AlgoProtoFilter.funcIndex(Collective.ALL_REDUCE);
    private static final int AG = AlgoProtoFilter.funcIndex(Collective.ALL_GATHER);

    private static TuningTopology host(int nRanks, int nNodes, int channels) {
        GraphInfo g = new GraphInfo(GraphPattern.RING, channels / 2, true, 6, 6, PathType.PHB, PathType.PHB, 0, 0);
        return new TuningTopology(nRanks, nNodes, nRanks / nNodes, nRanks / nNodes, 0, 0, CpuArch.X86,
                CpuVendor.INTEL, g, g, GraphPattern.TREE, channels, false, false);
    }

    @Test
    void singleHostFormulas() {
        HostCostModel m = new HostCostModel(host(4, 1, 2), HostModelParams.defaults(), AlgoProtoFilter.none());
        ModelTable t = m.table();
        // Ring AllReduce, 4 ranks: 6 steps of shm hops: Simple 2.0 + 6 x 1.5 = 11.0 us; 3.5 GB/s x 2 ch x 4/6 = 4.67 GB/s.
        assertThat(t.latUs(AR, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(11.0, within(1e-9));
        assertThat(t.bwGBps(AR, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(3.5 * 2 * 4 / 6, within(1e-9));
        // LL: 1.0 + 6 x 0.5 = 4.0 us; 2 x 2 x 4/6.
        assertThat(t.latUs(AR, Algorithm.RING, Protocol.LL)).isCloseTo(4.0, within(1e-9));
        // Tree: 2.0 + 2 x (3 x 1.5 + 0) = 11.0; 3.5 x 2 / 2 = 3.5 GB/s.
        assertThat(t.latUs(AR, Algorithm.TREE, Protocol.SIMPLE)).isCloseTo(11.0, within(1e-9));
        assertThat(t.bwGBps(AR, Algorithm.TREE, Protocol.SIMPLE)).isCloseTo(3.5, within(1e-9));
        // AllGather ring: 3 steps: 2.0 + 4.5; bw 7 x 4/3.
        assertThat(t.latUs(AG, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(6.5, within(1e-9));
        assertThat(t.bwGBps(AG, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(7.0 * 4 / 3, within(1e-9));
        assertThat(t.disabledReason(AR, Algorithm.NVLS, Protocol.SIMPLE)).contains("GPU-only");
        // time = lat + bytes / (1000 x bw)
        assertThat(m.timeUs(AR, Algorithm.RING, Protocol.SIMPLE, 8_000_000, 1))
                .isCloseTo(11.0 + 8_000_000 / (1000 * (3.5 * 2 * 4 / 6)), within(1e-6));
        assertThat(m.channels(Algorithm.RING, Protocol.SIMPLE, 1 << 20, 2).nChannels()).isEqualTo(2);
        assertThat(m.channels(Algorithm.RING, Protocol.SIMPLE, 40 << 10, 2).nChannels()).isEqualTo(1);
    }

    @Test
    void smallMessagesPickLlLargePickSimple() {
        try (Tuner t = Tuner.forHost(host(4, 1, 2), TuningParams.defaults(), HostModelParams.defaults(), null)) {
            assertThat(t.select(Collective.ALL_REDUCE, 8, 1).protocol()).isEqualTo(Protocol.LL);
            assertThat(t.select(Collective.ALL_REDUCE, 64 << 20, 1).protocol()).isEqualTo(Protocol.SIMPLE);
        }
    }

    @Test
    void acrossHostsUsesSocketHops() {
        HostCostModel m = new HostCostModel(host(4, 2, 2), HostModelParams.defaults(), AlgoProtoFilter.none());
        // 2 hosts x 2 ranks: ring AllReduce has 2(2-1) = 2 network steps of 6: 2.0 + 4 x 1.5 + 2 x 20 = 48.
        assertThat(m.table().latUs(AR, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(48.0, within(1e-9));
        // per channel min(6 shm, 1.5 net) = 1.5 x 2 ch x 4/6 = 2.
        assertThat(m.table().bwGBps(AR, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(2.0, within(1e-9));
    }

    @Test
    void treeAcrossHostsForSmallAllReduceRingForLarge() {
        for (int[] shape : new int[][] {{4, 2}, {4, 4}, {8, 4}, {6, 3}}) {
            try (Tuner t = Tuner.forHost(host(shape[0], shape[1], 2), TuningParams.defaults(), HostModelParams.defaults()
                    .withProtocols(EnumSet.of(Protocol.SIMPLE)), null)) {
                assertThat(t.select(Collective.ALL_REDUCE, 1024, 1).algorithm()).as("%s ranks/hosts", shape[0] + "/"
                        + shape[1]).isEqualTo(Algorithm.TREE);
                assertThat(t.select(Collective.ALL_REDUCE, 256L << 20, 1).algorithm()).isEqualTo(Algorithm.RING);
                assertThat(t.select(Collective.ALL_GATHER, 1024, 1).algorithm()).isEqualTo(Algorithm.RING);
            }
        }
        HostCostModel m = new HostCostModel(host(4, 2, 2), HostModelParams.defaults(), AlgoProtoFilter.none());
        assertThat(m.table().disabledReason(AR, Algorithm.TREE, Protocol.SIMPLE)).isNull();
        assertThat(m.table().disabledReason(AR, Algorithm.TREE, Protocol.LL)).contains("Simple protocol only");
        assertThat(m.table().disabledReason(AG, Algorithm.TREE, Protocol.SIMPLE)).contains("AllReduce only");
        // 2 hosts x 2 ranks: 2.0 + 2 x (1 x 1.5 + 1 x 20) = 45 us, below the ring's 48.
        assertThat(m.table().latUs(AR, Algorithm.TREE, Protocol.SIMPLE)).isCloseTo(45.0, within(1e-9));
    }

    @Test
    void oneHostNeverPicksTheTreeUnlessForced() {
        for (long bytes = 8; bytes <= (1L << 30); bytes *= 4) {
            try (Tuner t = Tuner.forHost(host(4, 1, 2), TuningParams.defaults(), HostModelParams.defaults(), null)) {
                assertThat(t.select(Collective.ALL_REDUCE, bytes, 1).algorithm()).isEqualTo(Algorithm.RING);
            }
        }
        TuningParams forced = TuningParams.from(TopoEnv.of(Map.of("NCCL_ALGO", "Tree")));
        try (Tuner t = Tuner.forHost(host(4, 1, 2), forced, HostModelParams.defaults(), null)) {
            assertThat(t.select(Collective.ALL_REDUCE, 1 << 20, 1).algorithm()).isEqualTo(Algorithm.TREE);
        }
    }

    @Test
    void parametersFromEnvironmentAndAvailability() {
        HostModelParams p = HostModelParams.from(TopoEnv.of(Map.of("JCCL_HOST_SHM_LAT_US_SIMPLE", "2.5")));
        assertThat(p.shmLatUs()[Protocol.SIMPLE.ordinal()]).isEqualTo(2.5);
        assertThatThrownBy(() -> HostModelParams.from(TopoEnv.of(Map.of("JCCL_HOST_NET_BW_GBPS_LL", "fast"))))
                .hasMessageContaining("JCCL_HOST_NET_BW_GBPS_LL=fast is not a number");
        HostModelParams noLl128 = HostModelParams.defaults().withProtocols(EnumSet.of(Protocol.LL, Protocol.SIMPLE));
        HostCostModel m = new HostCostModel(host(2, 1, 2), noLl128, AlgoProtoFilter.none());
        assertThat(m.table().disabledReason(AR, Algorithm.RING, Protocol.LL128))
                .isEqualTo("LL128 runs over shared memory only, and some peer is reached over sockets");
    }
}
