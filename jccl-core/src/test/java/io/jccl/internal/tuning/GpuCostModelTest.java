package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.CpuArch;
import io.jccl.internal.topology.CpuVendor;
import io.jccl.internal.topology.Fixtures;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.search.GraphInfo;
import io.jccl.internal.topology.search.GraphPattern;
import io.jccl.internal.topology.setup.TopoSetup;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class GpuCostModelTest {
    private static final int AR = AlgoProtoFilter.funcIndex(Collective.ALL_REDUCE);
    private static final int AG = AlgoProtoFilter.funcIndex(Collective.ALL_GATHER);
    private static final int BCAST = AlgoProtoFilter.funcIndex(Collective.BROADCAST);

    private static TuningTopology topo(String fixture, int nRanks) {
        return TuningTopology.from(TopoSetup.simulate(Fixtures.xml(fixture), nRanks, 0, TopoParams.defaults(), 0, 0,
                2, 6));
    }

    private static Tuner tuner(TuningTopology t, Map<String, String> env) {
        return Tuner.forGpu(t, TuningParams.from(TopoEnv.of(env)), null);
    }

    @Test
    void dgxSingleNodeTable() {
        // 8 ranks, 1 node, Hopper: ring and tree graphs 12 channels x 30 GB/s over NVLink.
        ModelTable t = tuner(topo(Fixtures.DGX_H100, 8), Map.of()).model().table();
        // Ring AllReduce: nSteps = 2(8-1) = 14; busBw = 12 x 30 = 360; bw = 360 x 8 / 14 = 205.71;
        // lat = 8.4 + 14 x 3.4 (NVLink ring Simple hop) = 56.0.
        assertThat(t.bwGBps(AR, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(360.0 * 8 / 14, within(1e-9));
        assertThat(t.latUs(AR, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(56.0, within(1e-9));
        // LL: min(llMaxBw Hopper 1 node = 141, 360/2) = 141 -> x 8/14; lat 6.6 + 14 x 0.6 = 15.0.
        assertThat(t.bwGBps(AR, Algorithm.RING, Protocol.LL)).isCloseTo(141.0 * 8 / 14, within(1e-9));
        assertThat(t.latUs(AR, Algorithm.RING, Protocol.LL)).isCloseTo(15.0, within(1e-9));
        // LL128: min(360 x 0.92, 12 x 36.7) = 331.2 -> x 8/14; lat 14 + 14 x 1.9 = 40.6.
        assertThat(t.bwGBps(AR, Algorithm.RING, Protocol.LL128)).isCloseTo(331.2 * 8 / 14, within(1e-9));
        assertThat(t.latUs(AR, Algorithm.RING, Protocol.LL128)).isCloseTo(40.6, within(1e-9));
        // Tree: busBw = min(360 x 0.92, 12 x 38.7) = 331.2; Simple x 0.5 = 165.6; LL min(331.2/3.8, 141) x 0.5;
        // LL128 min(331.2 x 7/9, 12 x 36.7) x 0.5. lat = base + 2 x 7 x hop: 8.4 + 56 = 64.4, 6.8 + 8.4, 14 + 17.5.
        assertThat(t.bwGBps(AR, Algorithm.TREE, Protocol.SIMPLE)).isCloseTo(165.6, within(1e-9));
        assertThat(t.bwGBps(AR, Algorithm.TREE, Protocol.LL)).isCloseTo(331.2 / 3.8 * 0.5, within(1e-9));
        assertThat(t.bwGBps(AR, Algorithm.TREE, Protocol.LL128)).isCloseTo(331.2 * 7 / 9 * 0.5, within(1e-9));
        assertThat(t.latUs(AR, Algorithm.TREE, Protocol.SIMPLE)).isCloseTo(64.4, within(1e-9));
        assertThat(t.latUs(AR, Algorithm.TREE, Protocol.LL)).isCloseTo(15.2, within(1e-9));
        assertThat(t.latUs(AR, Algorithm.TREE, Protocol.LL128)).isCloseTo(31.5, within(1e-9));
        // AllGather ring: nSteps 7 -> 360 x 8/7; lat 8.4 + 7 x 3.4 = 32.2. Broadcast (sameChannels): 8.4 + 3.4, bw 360.
        assertThat(t.bwGBps(AG, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(360.0 * 8 / 7, within(1e-9));
        assertThat(t.latUs(AG, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(32.2, within(1e-9));
        assertThat(t.latUs(BCAST, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(11.8, within(1e-9));
        assertThat(t.bwGBps(BCAST, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(360.0, within(1e-9));
        assertThat(t.disabledReason(AG, Algorithm.TREE, Protocol.SIMPLE)).isEqualTo("Tree runs AllReduce only");
        assertThat(t.disabledReason(AR, Algorithm.NVLS, Protocol.SIMPLE)).contains("NVLS");
        assertThat(t.disabledReason(AR, Algorithm.COLLNET_DIRECT, Protocol.SIMPLE)).contains("CollNet");
        assertThat(t.disabledReason(AR, Algorithm.PAT, Protocol.SIMPLE)).contains("PAT");
    }

    @Test
    void twoNodeTableAndDecisions() {
        // 2 nodes x 2 A100; ring 1 ch 12/12 NVL/PXN, tree 1 ch 24/12 NVL/PHB (GraphSearchTest); 2 comm channels.
        Tuner t = tuner(topo(Fixtures.TWO_GPU_NIC_NODE, 4), Map.of());
        ModelTable m = t.model().table();
        // Ring AR: nNodes <= 2 pre-Blackwell -> bwIntra 12; x 1 channel; x 4 / 6 steps = 8.
        // lat = 8.4 + (6 - 2) x max(3.4 NVLink hop, 3 x 1.0 Intel net overhead) + 2 x 14.0 (net ring Simple) = 50.0.
        assertThat(m.bwGBps(AR, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(8.0, within(1e-9));
        assertThat(m.latUs(AR, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(50.0, within(1e-9));
        // Tree AR: bwIntra 24 -> min(24 x 0.92, 23.6 Ampere 2-node cap) = 22.08 -> x 0.5 = 11.04;
        // lat = 8.4 + 2 x ((4/2 - 1) x 4.0 + log2(2) x 14) = 44.4.
        assertThat(m.bwGBps(AR, Algorithm.TREE, Protocol.SIMPLE)).isCloseTo(11.04, within(1e-9));
        assertThat(m.latUs(AR, Algorithm.TREE, Protocol.SIMPLE)).isCloseTo(44.4, within(1e-9));
        // LL128 is off: the GPU-NIC paths are PXN/PHB, farther than PXB (Ampere).
        assertThat(m.disabledReason(AR, Algorithm.RING, Protocol.LL128)).contains("PXN is farther than PXB");
        // 8 bytes: Ring/LL (lat 6.6 + 4 x max(0.6, 1.0 overhead) + 2 x 2.7 = 16.0) beats Tree/LL (18.0).
        ModelChoice small = t.select(Collective.ALL_REDUCE, 8, 1);
        assertThat(small.algorithm()).isEqualTo(Algorithm.RING);
        assertThat(small.protocol()).isEqualTo(Protocol.LL);
        // 1 GiB: ring Simple pays the multi-node plateau (lat x 1.4): 70 + 2^30/8000 = 134287.7 us; tree Simple
        // (no correction above 512 MB): 44.4 + 2^30/11040 = 97303.6 us -> Tree/Simple.
        ModelChoice big = t.select(Collective.ALL_REDUCE, 1L << 30, 1);
        assertThat(big.algorithm()).isEqualTo(Algorithm.TREE);
        assertThat(big.protocol()).isEqualTo(Protocol.SIMPLE);
        assertThat(big.timeUs()).isCloseTo(44.4 + (1L << 30) / 11040.0, within(1e-6));
        Candidate ring = big.candidates().stream().filter(c -> c.algorithm() == Algorithm.RING
                && c.protocol() == Protocol.SIMPLE).findFirst().orElseThrow();
        assertThat(ring.timeUs()).isCloseTo(50.0 * 1.4 + (1L << 30) / 8000.0, within(1e-6));
        assertThat(big.nChannels()).isEqualTo(2);
        assertThat(big.nThreads()).isEqualTo(512 + 4 * 32);
    }

    @Test
    void treeCorrectionFactorApplies() {
        Tuner t = tuner(topo(Fixtures.DGX_H100, 8), Map.of());
        // 4 MiB: log2(4 MiB / 64) = 16 -> Simple factor 0.7.
        Candidate c = t.select(Collective.ALL_REDUCE, 4 << 20, 1).candidates().stream()
                .filter(x -> x.algorithm() == Algorithm.TREE && x.protocol() == Protocol.SIMPLE).findFirst()
                .orElseThrow();
        assertThat(c.timeUs()).isCloseTo(64.4 + (4 << 20) / (1000 * 165.6 * 0.7), within(1e-6));
    }

    @Test
    void ll128NeedsNvlinkUnlessRequested() {
        TuningTopology pcie = topo(Fixtures.PCIE_2SOCKET, 4);
        ModelTable auto = tuner(pcie, Map.of()).model().table();
        assertThat(auto.disabledReason(AR, Algorithm.RING, Protocol.LL128))
                .isEqualTo("LL128 off: intra-node path SYS is not NVLink (needs <= NVB)");
        ModelTable forced = tuner(pcie, Map.of("NCCL_PROTO", "LL128")).model().table();
        assertThat(forced.enabled(AR, Algorithm.RING, Protocol.LL128)).isTrue();
        assertThat(forced.disabledReason(AR, Algorithm.RING, Protocol.SIMPLE)).contains("excluded by NCCL_PROTO");
    }

    @Test
    void forcedAlgorithmsRestrictOrFail() {
        TuningTopology dgx = topo(Fixtures.DGX_H100, 8);
        ModelChoice s = tuner(dgx, Map.of("NCCL_ALGO", "tree")).select(Collective.ALL_REDUCE, 1 << 30, 1);
        assertThat(s.algorithm()).isEqualTo(Algorithm.TREE);
        assertThat(s.forced()).isTrue();
        Tuner onlyTree = tuner(dgx, Map.of("NCCL_ALGO", "tree"));
        assertThatThrownBy(() -> onlyTree.select(Collective.ALL_GATHER, 1024, 1))
                .isInstanceOfSatisfying(JcclException.class, e -> {
                    assertThat(e.result()).isEqualTo(Result.INVALID_USAGE);
                    assertThat(e.getMessage()).contains("No algorithm/protocol available for function AllGather")
                            .contains("NCCL_ALGO was set to \"tree\"");
                });
        ModelChoice ll = tuner(dgx, Map.of("NCCL_PROTO", "LL")).select(Collective.ALL_REDUCE, 1 << 30, 1);
        assertThat(ll.protocol()).isEqualTo(Protocol.LL);
    }

    @Test
    void channelCountFollowsTheSize() {
        Tuner t = tuner(topo(Fixtures.DGX_H100, 8), Map.of("NCCL_ALGO", "ring", "NCCL_PROTO", "simple"));
        // Ring Simple: 512 threads x 64 bytes per thread per channel: n channels need n x 32 KiB.
        assertThat(t.select(Collective.ALL_REDUCE, 4 << 20, 1).nChannels()).isEqualTo(24);
        assertThat(t.select(Collective.ALL_REDUCE, 256 << 10, 1).nChannels()).isEqualTo(8);
        assertThat(t.select(Collective.ALL_REDUCE, 100 << 10, 1).nChannels()).isEqualTo(3); // 100 KiB / 32 KiB
        ModelChoice tiny = t.select(Collective.ALL_REDUCE, 8, 1);
        assertThat(tiny.nChannels()).isEqualTo(1);
        // one channel: threads halved while a multiple of 128 (512 -> 64), one sync warp added: 96.
        assertThat(tiny.nThreads()).isEqualTo(96);
        Tuner capped = tuner(topo(Fixtures.DGX_H100, 8), Map.of("NCCL_THREAD_THRESHOLDS", "8 8 64 8 8 1"));
        assertThat(capped.select(Collective.ALL_REDUCE, 1 << 20, 1).nChannels()).isEqualTo(24);
    }

    @Test
    void oneRankIsALocalCopy() {
        ModelChoice s = tuner(topo(Fixtures.NVLINK_PAIR, 1), Map.of()).select(Collective.ALL_REDUCE, 1 << 20, 1);
        assertThat(s.algorithm()).isEqualTo(Algorithm.RING);
        assertThat(s.protocol()).isEqualTo(Protocol.SIMPLE);
        assertThat(s.nChannels()).isEqualTo(1);
        assertThat(s.timeUs()).isZero();
        assertThat(s.candidates()).filteredOn(Candidate::usable).hasSize(1);
    }

    @Test
    void pointToPointIsNotTuned() {
        Tuner t = tuner(topo(Fixtures.NVLINK_PAIR, 2), Map.of());
        assertThat(Tuner.tuned(Collective.ALL_TO_ALL)).isFalse();
        assertThatThrownBy(() -> t.select(Collective.ALL_TO_ALL, 1024, 1)).isInstanceOfSatisfying(JcclException.class,
                e -> assertThat(e.result()).isEqualTo(Result.INVALID_ARGUMENT));
        assertThatThrownBy(() -> t.select(Collective.ALL_REDUCE, -1, 1)).isInstanceOf(JcclException.class);
    }

    @Test
    void amdNetworkOverheadAndLlCapsAcrossNodes() {
        // Synthetic 4 nodes x 8 ranks on AMD, Hopper: ring 8 ch x 40 GB/s inter, PIX.
        GraphInfo ring = new GraphInfo(GraphPattern.RING, 8, true, 40, 40, PathType.NVL, PathType.PIX, 0, 0);
        GraphInfo tree = new GraphInfo(GraphPattern.TREE, 8, true, 40, 40, PathType.NVL, PathType.PIX, 0, 0);
        TuningTopology t = new TuningTopology(32, 4, 8, 8, 90, 90, CpuArch.X86, CpuVendor.AMD, ring, tree,
                GraphPattern.TREE, 16, false, false);
        ModelTable m = tuner(t, Map.of()).model().table();
        // Ring AR Simple: nSteps 62, inter steps 6; intra hop max(3.4, 3 x 2.0 AMD overhead) = 6.0; net hop 14.0:
        // lat = 8.4 + 56 x 6.0 + 6 x 14.0 = 428.4. bw: 4 nodes -> bwInter 40 x 8 = 320 x 32/62.
        assertThat(m.latUs(AR, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(428.4, within(1e-9));
        assertThat(m.bwGBps(AR, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(320.0 * 32 / 62, within(1e-9));
        // LL cap across nodes indexes by CPU vendor: AMD row, 4+ nodes = 19.0.
        assertThat(m.bwGBps(AR, Algorithm.RING, Protocol.LL)).isCloseTo(19.0 * 32 / 62, within(1e-9));
        // Tree with TREE pattern: x 0.85. busBw = min(320 x 0.92, 8 x 36.0) = 288 -> x 0.85 x 0.5.
        assertThat(m.bwGBps(AR, Algorithm.TREE, Protocol.SIMPLE)).isCloseTo(288 * 0.85 * 0.5, within(1e-9));
        Map<String, String> env = Map.of("NCCL_NET_OVERHEAD", "500");
        ModelTable m2 = tuner(t, env).model().table();
        // 0.5 us overhead x 3 < 3.4 NVLink hop: lat = 8.4 + 56 x 3.4 + 6 x 14.
        assertThat(m2.latUs(AR, Algorithm.RING, Protocol.SIMPLE)).isCloseTo(8.4 + 56 * 3.4 + 84, within(1e-9));
    }

    @Test
    void tuningParamsValidation() {
        assertThatThrownBy(() -> TuningParams.from(TopoEnv.of(Map.of("NCCL_MAX_NCHANNELS", "65"))))
                .hasMessageContaining("within 0..64");
        assertThatThrownBy(() -> TuningParams.from(TopoEnv.of(Map.of("NCCL_NTHREADS", "100"))))
                .hasMessageContaining("multiple of 32");
        assertThatThrownBy(() -> TuningParams.from(TopoEnv.of(Map.of("NCCL_THREAD_THRESHOLDS", "1 2 3"))))
                .hasMessageContaining("needs 6 numbers");
        assertThatThrownBy(() -> TuningParams.from(TopoEnv.of(Map.of("NCCL_MIN_NCHANNELS", "four"))))
                .isInstanceOfSatisfying(JcclException.class, e -> assertThat(e.getMessage())
                        .contains("NCCL_MIN_NCHANNELS=four is not an integer"));
        TuningParams p = TuningParams.from(TopoEnv.of(Map.of("NCCL_MIN_NCHANNELS", "0x4", "NCCL_MAX_NCHANNELS", "010")));
        assertThat(p.minChannels()).isEqualTo(4);
        assertThat(p.maxChannels()).isEqualTo(8); // strtoll base 0: leading 0 is octal
    }
}
