package io.jccl.cuda.internal.clique;

import io.jccl.JcclException;
import io.jccl.cuda.AllReduceAlgorithm;
import io.jccl.cuda.CliqueOptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AllReducePlannerTest {
    private final CliqueOptions opts = CliqueOptions.defaults();

    @Test
    void autoGoesFromLlToPushToRingAsSizesGrow() {
        AllReducePlanner p = new AllReducePlanner(opts, 2, 132);
        assertThat(p.choose(8, false)).isEqualTo(AllReduceAlgorithm.LL);
        assertThat(p.choose(opts.llMaxBytes(), false)).isEqualTo(AllReduceAlgorithm.LL);
        assertThat(p.choose(opts.llMaxBytes() + 16, false)).isEqualTo(AllReduceAlgorithm.PUSH);
        assertThat(p.choose(opts.llMaxBytes() + 16, true)).isEqualTo(AllReduceAlgorithm.PUSH);
        long big = Math.max(Math.max(opts.oneShotMaxBytes(), opts.twoShotMaxBytes()), opts.pushMaxBytes()) + 1;
        assertThat(p.choose(big, false)).isEqualTo(AllReduceAlgorithm.RING);
    }

    @Test
    void pullOneShotIsUsedOnlyOutOfPlace() {
        CliqueOptions pull = new CliqueOptions(AllReduceAlgorithm.AUTO, 1024, 4096, 1L << 20, 8L << 20, 64, 64,
                256 << 10, 2);
        AllReducePlanner p = new AllReducePlanner(pull, 2, 132);
        assertThat(p.choose(8192, false)).isEqualTo(AllReduceAlgorithm.ONE_SHOT);
        assertThat(p.choose(8192, true)).isEqualTo(AllReduceAlgorithm.TWO_SHOT);
        assertThat(p.choose(4L << 20, false)).isEqualTo(AllReduceAlgorithm.TWO_SHOT);
    }

    @Test
    void moreGpusShrinkTheOneShotRange() {
        AllReducePlanner two = new AllReducePlanner(opts, 2, 132);
        AllReducePlanner eight = new AllReducePlanner(opts, 8, 132);
        long s = 4L << 20;
        assertThat(two.choose(s, false)).isEqualTo(AllReduceAlgorithm.PUSH);
        assertThat(eight.choose(s, false)).isEqualTo(AllReduceAlgorithm.TWO_SHOT);
    }

    @Test
    void gridsStayWithinTheLimitsAndGrowWithSize() {
        AllReducePlanner p = new AllReducePlanner(opts.withAlgorithm(AllReduceAlgorithm.ONE_SHOT), 2, 132);
        AllReducePlanner.Plan plan = new AllReducePlanner.Plan();
        p.plan(4, 4, false, plan);
        assertThat(plan.blocks()).isEqualTo(1);
        p.plan(1L << 20, 4, false, plan);
        int mid = plan.blocks();
        p.plan(1L << 28, 4, false, plan);
        assertThat(plan.blocks()).isGreaterThanOrEqualTo(mid).isLessThanOrEqualTo(opts.maxBlocks());
        AllReducePlanner small = new AllReducePlanner(opts.withAlgorithm(AllReduceAlgorithm.ONE_SHOT), 2, 8);
        small.plan(1L << 28, 4, false, plan);
        assertThat(plan.blocks()).as("co-residency bound").isEqualTo(8);
    }

    @Test
    void ringUsesWholeSlotsPerChunkAndChannelsByVolume() {
        AllReducePlanner p = new AllReducePlanner(opts.withAlgorithm(AllReduceAlgorithm.RING), 2, 132);
        AllReducePlanner.Plan plan = new AllReducePlanner.Plan();
        p.plan(1L << 28, 2, false, plan);
        assertThat(plan.algorithm()).isEqualTo(AllReduceAlgorithm.RING);
        assertThat(plan.chunkElems()).isEqualTo(opts.ringSlotBytes() / 2 * opts.ringChunkSteps());
        assertThat(plan.blocks()).isEqualTo(opts.ringChannels());
        p.plan(1000, 4, false, plan);
        assertThat(plan.blocks()).isEqualTo(1);
    }

    @Test
    void forcedKernelsThatCannotRunAreRefused() {
        AllReducePlanner.Plan plan = new AllReducePlanner.Plan();
        AllReducePlanner one = new AllReducePlanner(opts.withAlgorithm(AllReduceAlgorithm.ONE_SHOT), 2, 132);
        assertThatThrownBy(() -> one.plan(1024, 4, true, plan)).isInstanceOf(JcclException.class)
                .hasMessageContaining("in place");
        AllReducePlanner ll = new AllReducePlanner(opts.withAlgorithm(AllReduceAlgorithm.LL), 2, 132);
        assertThatThrownBy(() -> ll.plan(opts.llMaxBytes(), 4, false, plan)).isInstanceOf(JcclException.class)
                .hasMessageContaining("llMaxBytes");
        AllReducePlanner push = new AllReducePlanner(opts.withAlgorithm(AllReduceAlgorithm.PUSH), 2, 132);
        assertThatThrownBy(() -> push.plan(opts.pushMaxBytes(), 4, false, plan)).isInstanceOf(JcclException.class)
                .hasMessageContaining("pushMaxBytes");
    }
}
