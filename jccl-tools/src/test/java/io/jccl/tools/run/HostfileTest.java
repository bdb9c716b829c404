package io.jccl.tools.run;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HostfileTest {

    @Test
    void parsesOpenMpiLinesCommentsAndDefaults() {
        Hostfile f = Hostfile.parse("""
                # two nodes
                node1 slots=2 max_slots=4
                  node2   # one slot by default

                10.0.0.3 slots=3
                node1 slots=1
                """, "test");
        assertThat(f.hosts()).containsExactly(new Hostfile.Host("node1", 3), new Hostfile.Host("node2", 1),
                new Hostfile.Host("10.0.0.3", 3));
        assertThat(f.totalSlots()).isEqualTo(7);
    }

    @Test
    void badLinesAreNamedWithTheirLineNumber() {
        assertThatThrownBy(() -> Hostfile.parse("a\nb slots=x\n", "hf")).hasMessageContaining("hf:2")
                .hasMessageContaining("'x' is not a number");
        assertThatThrownBy(() -> Hostfile.parse("a cpus=2\n", "hf")).hasMessageContaining("unknown word 'cpus=2'");
        assertThatThrownBy(() -> Hostfile.parse("a slots=0\n", "hf")).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> Hostfile.parse("# nothing\n", "hf")).hasMessageContaining("no host");
    }

    @Test
    void ranksFillEachHostsSlotsInOrderThenWrapAround() {
        Hostfile f = Hostfile.parse("a slots=2\nb slots=1\n", "t");
        RankPlacement p = RankPlacement.bySlot(f, 5);
        assertThat(p.hostOfRank()).containsExactly("a", "a", "b", "a", "a");
        assertThat(p.localRank()).containsExactly(0, 1, 0, 2, 3);
        assertThat(p.localWorldSize()).containsExactly(4, 4, 1, 4, 4);
        assertThat(p.ranksPerHost()).containsExactly(java.util.Map.entry("a", 4), java.util.Map.entry("b", 1));
        assertThat(RankPlacement.bySlot(f, 2).hostOfRank()).isEqualTo(List.of("a", "a"));
    }
}
