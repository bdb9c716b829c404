package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The split of ranks over bootstrap roots (NCCL's: contiguous groups, the first n % k roots one rank larger). */
class RootGroupsTest {
    @Test
    void tenRanksOverFourRoots() {
        RootGroups g = new RootGroups(10, 4);
        assertThat(new int[] {g.size(0), g.size(1), g.size(2), g.size(3)}).containsExactly(3, 3, 2, 2);
        assertThat(new int[] {g.first(0), g.first(1), g.first(2), g.first(3)}).containsExactly(0, 3, 6, 8);
        assertThat(new int[] {g.neighbour(0), g.neighbour(1), g.neighbour(2), g.neighbour(3)})
                .containsExactly(3, 6, 8, 0);
        assertThat(g.neighbourRootOf(0)).isEqualTo(3);
        assertThat(g.neighbourRootOf(3)).isZero();
        assertThat(g.neighbourRootOf(4)).isEqualTo(-1);
        assertThat(g.slot(0, 3)).isEqualTo(3);
        assertThat(g.slot(3, 0)).isEqualTo(2);
        assertThat(g.slot(0, 4)).isEqualTo(-1);
    }

    @Test
    void everyRankIsInTheGroupOfItsRootAndSlotsInvertRanks() {
        for (int n = 1; n <= 40; n++) {
            for (int k = 1; k <= n; k++) {
                RootGroups g = new RootGroups(n, k);
                int total = 0;
                for (int root = 0; root < k; root++) {
                    total += g.size(root);
                    assertThat(g.size(root)).isBetween(n / k, n / k + 1);
                    for (int i = 0; i < g.expected(root); i++) {
                        assertThat(g.slot(root, g.rankAt(root, i))).isEqualTo(i);
                    }
                }
                assertThat(total).isEqualTo(n);
                for (int r = 0; r < n; r++) {
                    int root = g.rootOf(r);
                    assertThat(r).isBetween(g.first(root), g.first(root) + g.size(root) - 1);
                }
            }
        }
    }

    @Test
    void moreRootsThanRanksIsRefused() {
        assertThatThrownBy(() -> new RootGroups(2, 3)).isInstanceOf(JcclException.class)
                .hasMessageContaining("3 bootstrap roots for 2 ranks");
    }
}
