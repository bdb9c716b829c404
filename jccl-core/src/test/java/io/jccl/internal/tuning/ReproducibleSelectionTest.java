package io.jccl.internal.tuning;

import io.jccl.Collective;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What JCCL_REPRODUCIBLE selects: reductions in rank order only, whatever the size, tuner or registration. */
class ReproducibleSelectionTest {
    private static HostSelector selector(int nRanks, boolean on, boolean area) {
        return new HostSelector(null, nRanks, 4, area ? 16 << 10 : 0, 0, true, 64 << 10, 64 << 10)
                .reproducible(on, area);
    }

    private static AlgoKind kind(HostSelector s, Collective c, long bytes, boolean registered) {
        return HostSelector.kindOf(s.choose(c, bytes / 4, bytes, registered));
    }

    @Test
    void withASharedAreaAllReduceIsOneShotThenTwoShotAtAnySize() {
        HostSelector s = selector(4, true, true);
        assertThat(kind(s, Collective.ALL_REDUCE, 4 << 10, false)).isEqualTo(AlgoKind.ONE_SHOT);
        assertThat(kind(s, Collective.ALL_REDUCE, 1L << 30, false)).isEqualTo(AlgoKind.TWO_SHOT);
        assertThat(kind(s, Collective.ALL_REDUCE, 1L << 20, true)).as("registered buffers too")
                .isEqualTo(AlgoKind.TWO_SHOT);
        assertThat(kind(s, Collective.REDUCE_SCATTER, 1L << 20, false)).isEqualTo(AlgoKind.RANK_ORDER);
        assertThat(HostSelector.channelsOf(s.choose(Collective.REDUCE_SCATTER, 1 << 18, 1 << 20, false))).isOne();
    }

    @Test
    void withoutOneEveryReductionGathersThenReducesInRankOrder() {
        HostSelector s = selector(4, true, false);
        for (long bytes : new long[] {4, 4 << 10, 1L << 20, 1L << 30}) {
            assertThat(kind(s, Collective.ALL_REDUCE, bytes, false)).isEqualTo(AlgoKind.RANK_ORDER);
            assertThat(kind(s, Collective.REDUCE_SCATTER, bytes, false)).isEqualTo(AlgoKind.RANK_ORDER);
        }
        assertThat(s.select(Collective.ALL_REDUCE, 1 << 20, io.jccl.RedOp.Kind.SUM, false).line())
                .contains("RANK_ORDER/Simple, 1 channel").contains("JCCL_REPRODUCIBLE");
    }

    @Test
    void otherCollectivesAndTheDefaultAreUnchanged() {
        HostSelector on = selector(4, true, false);
        HostSelector off = selector(4, false, false);
        for (Collective c : new Collective[] {Collective.ALL_GATHER, Collective.BROADCAST, Collective.REDUCE}) {
            assertThat(on.choose(c, 1 << 18, 1 << 20, false)).isEqualTo(off.choose(c, 1 << 18, 1 << 20, false));
        }
        assertThat(kind(off, Collective.ALL_REDUCE, 1L << 20, false)).isEqualTo(AlgoKind.RING);
        assertThat(selector(1, true, false).reproducible()).as("one rank has nothing to order").isFalse();
        assertThat(kind(on, Collective.ALL_REDUCE, 0, false)).isEqualTo(AlgoKind.NONE);
    }
}
