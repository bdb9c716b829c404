package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoEnv;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GpuNetTuningTest {
    private static Tuner twoHosts(Map<String, String> env, int netMbps) {
        return GpuNetTuning.create(4, 2, 2, 2, 90, 2, 20.0, PathType.PHB, netMbps, TopoEnv.of(env));
    }

    @Test
    void acrossHostsTheModelPricesNetAndChoosesWhatTheKernelsRun() {
        Tuner t = twoHosts(Map.of(), 10_000);
        for (long bytes : new long[] {8, 64 << 10, 1 << 20, 128 << 20}) {
            ModelChoice m = t.select(Collective.ALL_REDUCE, bytes, 1);
            assertThat(m.algorithm()).isEqualTo(Algorithm.RING);
            assertThat(m.candidates()).filteredOn(c -> c.algorithm() == Algorithm.TREE && c.protocol() != Protocol.SIMPLE)
                    .allSatisfy(c -> assertThat(c.disabledBy()).isEqualTo(GpuNetTuning.NOT_ACROSS_HOSTS));
            assertThat(m.candidates()).filteredOn(c -> c.algorithm() == Algorithm.TREE && c.protocol() == Protocol.SIMPLE)
                    .singleElement().satisfies(c -> assertThat(c.usable()).isTrue());
            assertThat(m.candidates()).filteredOn(c -> c.protocol() == Protocol.LL128)
                    .allSatisfy(c -> assertThat(c.disabledBy()).isNotNull());
            assertThat(m.candidates()).filteredOn(c -> c.algorithm() == Algorithm.RING && c.protocol() != Protocol.LL128)
                    .allSatisfy(c -> assertThat(c.usable()).isTrue());
        }
        // LL for the smallest calls, Simple for the large ones, by the model's predicted times
        assertThat(t.select(Collective.ALL_REDUCE, 8, 1).protocol()).isEqualTo(Protocol.LL);
        assertThat(Tuner.protocolOf(t.choose(Collective.ALL_REDUCE, 8, 1))).isEqualTo(Protocol.LL);
        assertThat(t.select(Collective.ALL_REDUCE, 128 << 20, 1).protocol()).isEqualTo(Protocol.SIMPLE);
        assertThat(Tuner.protocolOf(t.choose(Collective.ALL_REDUCE, 128 << 20, 1))).isEqualTo(Protocol.SIMPLE);
        // NET priced: a slower link predicts more time at large sizes, the same fixed latency at the smallest
        Tuner slow = twoHosts(Map.of(), 1_000);
        assertThat(GpuNetTuning.predictedUs(slow, Collective.ALL_REDUCE, 128 << 20))
                .isGreaterThan(5 * GpuNetTuning.predictedUs(t, Collective.ALL_REDUCE, 128 << 20));
        double small = GpuNetTuning.predictedUs(t, Collective.ALL_REDUCE, 8);
        assertThat(small).isPositive().isLessThan(GpuNetTuning.predictedUs(t, Collective.ALL_REDUCE, 1 << 20));
        // a ring that crosses hosts pays NCCL's net latency per step: more than the same ring inside one host
        Tuner oneHost = Tuner.forGpu(new TuningTopology(4, 1, 4, 4, 90, 90, t.topology().cpuArch(),
                t.topology().cpuVendor(), t.topology().ring(), t.topology().tree(), t.topology().maxTreePattern(), 2,
                false, false), TuningParams.from(TopoEnv.of(Map.of("NCCL_ALGO", "Ring", "NCCL_PROTO", "Simple"))),
                null);
        double acrossSimple = t.select(Collective.ALL_REDUCE, 8, 1).candidates().stream()
                .filter(c -> c.algorithm() == Algorithm.RING && c.protocol() == Protocol.SIMPLE).findFirst()
                .orElseThrow().timeUs();
        assertThat(acrossSimple).isGreaterThan(oneHost.select(Collective.ALL_REDUCE, 8, 1).timeUs());
    }

    @Test
    void channelsFollowTheSizeAndThePricedSelectionSaysWhatItPredicted() {
        Tuner t = twoHosts(Map.of(), 10_000);
        assertThat(Tuner.channelsOf(t.choose(Collective.ALL_REDUCE, 128 << 20, 1))).isEqualTo(2);
        Selection s = GpuNetTuning.priced(t, Collective.ALL_GATHER, 1 << 20, 4 << 20, "ring", 2, 1 << 20,
                "ranks on 2 hosts");
        assertThat(s.model()).isNotNull();
        assertThat(s.why()).startsWith("ranks on 2 hosts; NCCL's model over NET (2 hosts, 1.25 GB/s a channel)"
                + " predicts Ring/");
        assertThat(s.protocol()).isEqualTo(t.select(Collective.ALL_GATHER, 4 << 20, 1).protocol());
    }

    @Test
    void anAlgorithmSettingThatLeavesNothingTheKernelsRunIsRefused() {
        // the tree runs allReduce only: NCCL_ALGO=Tree leaves allGather nothing, as in NCCL
        Tuner t = twoHosts(Map.of("NCCL_ALGO", "Tree"), 10_000);
        assertThat(Tuner.algorithmOf(t.choose(Collective.ALL_REDUCE, 1 << 20, 1))).isEqualTo(Algorithm.TREE);
        assertThat(Tuner.protocolOf(t.choose(Collective.ALL_REDUCE, 8, 1))).isEqualTo(Protocol.SIMPLE);
        assertThatThrownBy(() -> t.choose(Collective.ALL_GATHER, 1 << 20, 1)).isInstanceOf(JcclException.class)
                .satisfies(e -> assertThat(((JcclException) e).result()).isIn(Result.INVALID_USAGE,
                        Result.INTERNAL_ERROR));
        Tuner allReduceOnly = twoHosts(Map.of("NCCL_ALGO", "allreduce:tree"), 10_000);
        assertThat(Tuner.algorithmOf(allReduceOnly.choose(Collective.ALL_REDUCE, 128 << 20, 1)))
                .isEqualTo(Algorithm.TREE);
        assertThat(Tuner.algorithmOf(allReduceOnly.choose(Collective.ALL_GATHER, 128 << 20, 1)))
                .isEqualTo(Algorithm.RING);
        Tuner ll128 = twoHosts(Map.of("NCCL_PROTO", "LL128"), 10_000);
        assertThatThrownBy(() -> ll128.choose(Collective.ALL_REDUCE, 1 << 20, 1)).isInstanceOf(JcclException.class);
    }

    @Test
    void atTheSizesAGpuCommunicatorHoldsTheModelPrefersTheRing() {
        // up to 8 ranks (the kernels' limit) NCCL's model never prices the tree below the ring, at any size
        for (int[] shape : new int[][] {{2, 2, 1}, {4, 2, 2}, {8, 8, 1}, {8, 4, 2}}) {
            Tuner t = GpuNetTuning.create(shape[0], shape[1], shape[2], shape[2], 90, 2, 20.0, PathType.PHB, 10_000,
                    TopoEnv.of(Map.of()));
            for (long bytes = 8; bytes <= 1L << 30; bytes *= 4) {
                assertThat(t.select(Collective.ALL_REDUCE, bytes, 1).algorithm()).as("%s, %d B",
                        java.util.Arrays.toString(shape), bytes).isEqualTo(Algorithm.RING);
            }
        }
    }
}
