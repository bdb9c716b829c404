package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.internal.topology.Fixtures;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.setup.CommPlan;
import io.jccl.internal.topology.setup.TopoSetup;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExplainTest {

    @Test
    void requestGrammar() {
        assertThat(Explain.Request.parse("allreduce:1M")).isEqualTo(new Explain.Request(Collective.ALL_REDUCE, 1 << 20));
        assertThat(Explain.Request.parse("ALL_GATHER:4096")).isEqualTo(new Explain.Request(Collective.ALL_GATHER, 4096));
        assertThat(Explain.Request.parse("ReduceScatter:2g")).isEqualTo(
                new Explain.Request(Collective.REDUCE_SCATTER, 2L << 30));
        assertThat(Explain.Request.parse("broadcast:64KB").nBytes()).isEqualTo(64 << 10);
        assertThatThrownBy(() -> Explain.Request.parse("allreduce")).isInstanceOf(JcclException.class)
                .hasMessageContaining("COLL:BYTES");
        assertThatThrownBy(() -> Explain.Request.parse("allmagic:8")).hasMessageContaining("unknown collective");
        assertThatThrownBy(() -> Explain.Request.parse("allreduce:-3")).hasMessageContaining("not a byte count");
    }

    @Test
    void textTellsTheWholeStory() {
        CommPlan plan = TopoSetup.simulate(Fixtures.xml(Fixtures.TWO_GPU_NIC_NODE), 4, 0, TopoParams.defaults(), 0, 0,
                2, 6);
        try (Tuner tuner = Tuner.forGpu(TuningTopology.from(plan), TuningParams.defaults(), null)) {
            String text = Explain.text(plan, tuner, List.of(Explain.Request.parse("allreduce:1G"),
                    Explain.Request.parse("alltoall:4K")), 64);
            assertThat(text).contains("4 ranks on 2 nodes")
                    .contains("=== System : maxBw 12.5 totalBw 240.0 ===")
                    .contains("GPU/0-21000 : GPU/0-11000 (1/240.0/NVL)")
                    .contains("NET/0-0 (4/12.5/PXN)")
                    .contains("Pattern 4, crossNic 0, nChannels 1, bw 12.000000/12.000000, type NVL/PXN, sameChannels 1")
                    .contains(" 0 : NET/0 GPU/0 GPU/1 NET/0")
                    .contains("Ring 00 : 0 1 2 3")
                    .contains("AllReduce 1073741824 bytes -> Tree/Simple, 2 channels x 640 threads")
                    .contains(" * Tree/Simple")
                    .contains("Ring/LL128                      -  disabled: LL128 off: GPU-NIC path PXN is farther")
                    .contains("CollnetDirect/Simple            -  disabled: CollNet needs a network SHARP plugin")
                    .contains("AllToAll 4096 bytes: not chosen by the cost model");
            assertThat(text.lines().filter(l -> l.startsWith(" * "))).hasSize(1);
        }
    }
}
