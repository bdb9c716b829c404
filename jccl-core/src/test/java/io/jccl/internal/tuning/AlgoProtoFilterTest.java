package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.Result;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AlgoProtoFilterTest {
    private static final int BCAST = AlgoProtoFilter.funcIndex(Collective.BROADCAST);
    private static final int AG = AlgoProtoFilter.funcIndex(Collective.ALL_GATHER);
    private static final int AR = AlgoProtoFilter.funcIndex(Collective.ALL_REDUCE);

    @Test
    void unsetAllowsEverythingAndForcesNothing() {
        AlgoProtoFilter f = AlgoProtoFilter.none();
        for (int i = 0; i < 5; i++) {
            assertThat(f.forced(i)).isFalse();
            for (Algorithm a : Algorithm.values()) {
                assertThat(f.algoAllowed(i, a)).isTrue();
            }
            assertThat(f.protoState(i, Protocol.LL)).isEqualTo(1);
            assertThat(f.protoState(i, Protocol.LL128)).isEqualTo(2); // not mentioned: hardware decides
            assertThat(f.exclusion(i, Algorithm.RING, Protocol.LL)).isNull();
        }
        assertThat(f.anySet()).isFalse();
        assertThat(AlgoProtoFilter.funcIndex(Collective.ALL_TO_ALL)).isEqualTo(-1);
    }

    @Test
    void ncclAlgoExampleWithPrefixes() {
        AlgoProtoFilter f = AlgoProtoFilter.parse("ring,collnetdirect;allreduce:tree,collnetdirect;broadcast:ring", null);
        assertThat(f.algoAllowed(AG, Algorithm.RING)).isTrue();
        assertThat(f.algoAllowed(AG, Algorithm.COLLNET_DIRECT)).isTrue();
        assertThat(f.algoAllowed(AG, Algorithm.TREE)).isFalse();
        assertThat(f.algoAllowed(AR, Algorithm.TREE)).isTrue();
        assertThat(f.algoAllowed(AR, Algorithm.RING)).isFalse();
        assertThat(f.algoAllowed(BCAST, Algorithm.RING)).isTrue();
        assertThat(f.algoAllowed(BCAST, Algorithm.COLLNET_DIRECT)).isFalse();
        for (int i = 0; i < 5; i++) {
            assertThat(f.forced(i)).isTrue();
        }
        assertThat(f.exclusion(AR, Algorithm.RING, Protocol.SIMPLE)).contains("excluded by NCCL_ALGO");
        assertThat(f.exclusion(AR, Algorithm.TREE, Protocol.SIMPLE)).isNull();
    }

    @Test
    void ncclProtoNegationPerCollective() {
        AlgoProtoFilter f = AlgoProtoFilter.parse(null, "^LL128;allreduce:LL128");
        assertThat(f.protoState(AG, Protocol.LL)).isEqualTo(1);
        assertThat(f.protoState(AG, Protocol.LL128)).isZero();
        assertThat(f.protoState(AG, Protocol.SIMPLE)).isEqualTo(1);
        assertThat(f.protoState(AR, Protocol.LL)).isZero();
        assertThat(f.protoState(AR, Protocol.LL128)).isEqualTo(1);
        assertThat(f.protoState(AR, Protocol.SIMPLE)).isZero();
        assertThat(f.algoAllowed(AR, Algorithm.TREE)).isTrue(); // NCCL_ALGO unset: all algorithms
        assertThat(f.exclusion(AR, Algorithm.RING, Protocol.SIMPLE)).contains("excluded by NCCL_PROTO=\"^LL128;");
    }

    @Test
    void negatedListExplicitlyEnablesTheRest() {
        // "^LL" sets every listed-function entry to 1 then LL to 0: LL128 becomes explicitly requested (1, not 2).
        AlgoProtoFilter f = AlgoProtoFilter.parse(null, "LL,Simple;allreduce:^LL");
        assertThat(f.protoState(AR, Protocol.LL)).isZero();
        assertThat(f.protoState(AR, Protocol.LL128)).isEqualTo(1);
        assertThat(f.protoState(AR, Protocol.SIMPLE)).isEqualTo(1);
        assertThat(f.protoState(BCAST, Protocol.LL128)).isZero();
    }

    @Test
    void prefixOnlyForcesThatCollective() {
        AlgoProtoFilter f = AlgoProtoFilter.parse("allreduce:TrEe", "");
        assertThat(f.forced(AR)).isTrue();
        assertThat(f.forced(AG)).isFalse();
        assertThat(f.algoAllowed(AR, Algorithm.TREE)).isTrue();
        assertThat(f.algoAllowed(AR, Algorithm.RING)).isFalse();
        // Not forced: the environment does not restrict AllGather at all.
        assertThat(f.exclusion(AG, Algorithm.RING, Protocol.LL)).isNull();
        assertThat(f.protoString()).isNull();
    }

    @Test
    void grammarErrorsAreInvalidUsage() {
        assertThatThrownBy(() -> AlgoProtoFilter.parse("ring;tree", null)).isInstanceOfSatisfying(JcclException.class,
                e -> {
                    assertThat(e.result()).isEqualTo(Result.INVALID_USAGE);
                    assertThat(e.getMessage()).contains("needs a collective prefix");
                });
        assertThatThrownBy(() -> AlgoProtoFilter.parse("ring,fast", null))
                .hasMessageContaining("Unrecognized element token \"fast\"").hasMessageContaining("NCCL_ALGO");
        assertThatThrownBy(() -> AlgoProtoFilter.parse(null, "allgatherx:LL"))
                .hasMessageContaining("Unrecognized prefix token \"allgatherx\"").hasMessageContaining("NCCL_PROTO");
    }
}
