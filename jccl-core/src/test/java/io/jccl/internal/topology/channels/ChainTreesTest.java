package io.jccl.internal.topology.channels;

import io.jccl.JcclException;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Deque;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChainTreesTest {

    @Test
    void twoHostsOfTwoRanks() {
        // ring 0 1 | 2 3: host 0 is the root of tree 0, host 1 of tree 1 (mirrored)
        int[] order = {0, 1, 2, 3};
        int[] hostOf = {7, 7, 9, 9};
        assertThat(ChainTrees.links(order, hostOf, 0, 0)).containsExactly(-1, -1, 2, 1);
        assertThat(ChainTrees.links(order, hostOf, 1, 0)).containsExactly(0, -1, -1, -1);
        assertThat(ChainTrees.links(order, hostOf, 2, 0)).containsExactly(0, -1, -1, 3);
        assertThat(ChainTrees.links(order, hostOf, 3, 0)).containsExactly(2, -1, -1, -1);
        assertThat(ChainTrees.links(order, hostOf, 2, 1)).containsExactly(-1, -1, 0, 3);
        assertThat(ChainTrees.links(order, hostOf, 0, 1)).containsExactly(2, -1, -1, 1);
    }

    @Test
    void oneHostIsOneChainInRingOrder() {
        int[] order = {0, 2, 1, 3};
        int[] hostOf = {0, 0, 0, 0};
        assertThat(ChainTrees.links(order, hostOf, 0, 0)).containsExactly(-1, -1, -1, 2);
        assertThat(ChainTrees.links(order, hostOf, 2, 1)).containsExactly(0, 1, -1, -1);
        assertThat(ChainTrees.links(order, hostOf, 3, 0)).containsExactly(1, -1, -1, -1);
    }

    @Test
    void everyShapeIsOneTreeWhoseLinksAgree() {
        for (int hosts = 1; hosts <= 8; hosts++) {
            for (int per = 1; per <= 3 && hosts * per <= 8; per++) {
                int n = hosts * per;
                int[] order = new int[n];
                int[] hostOf = new int[n];
                for (int i = 0; i < n; i++) {
                    order[i] = n - 1 - i;   // ranks backwards, each host's together
                    hostOf[i] = 100 + i / per;
                }
                for (int which = 0; which < 2; which++) {
                    int[][] links = new int[n][];
                    for (int r = 0; r < n; r++) {
                        links[r] = ChainTrees.links(order, hostOf, r, which);
                    }
                    int root = -1;
                    for (int r = 0; r < n; r++) {
                        if (links[r][0] < 0) {
                            assertThat(root).as("one root (hosts %d, per %d, tree %d)", hosts, per, which).isEqualTo(-1);
                            root = r;
                        } else {
                            assertThat(links[links[r][0]]).as("parent of %d lists it", r).contains(r);
                        }
                        for (int c = 1; c <= ChainTrees.MAX_CHILDREN; c++) {
                            if (links[r][c] >= 0) {
                                assertThat(links[links[r][c]][0]).isEqualTo(r);
                            }
                        }
                    }
                    boolean[] seen = new boolean[n];
                    Deque<Integer> todo = new ArrayDeque<>();
                    todo.add(root);
                    int reached = 0;
                    while (!todo.isEmpty()) {
                        int r = todo.poll();
                        assertThat(seen[r]).isFalse();
                        seen[r] = true;
                        reached++;
                        for (int c = 1; c <= ChainTrees.MAX_CHILDREN; c++) {
                            if (links[r][c] >= 0) {
                                todo.add(links[r][c]);
                            }
                        }
                    }
                    assertThat(reached).isEqualTo(n);
                }
            }
        }
    }

    @Test
    void aRingThatVisitsAHostTwiceIsRefused() {
        assertThatThrownBy(() -> ChainTrees.links(new int[] {0, 2, 1, 3}, new int[] {0, 0, 1, 1}, 0, 0))
                .isInstanceOf(JcclException.class).hasMessageContaining("visits a host twice");
    }
}
