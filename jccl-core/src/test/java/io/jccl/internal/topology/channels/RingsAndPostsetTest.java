package io.jccl.internal.topology.channels;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.Fixtures;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.search.GraphPattern;
import io.jccl.internal.topology.search.TopoGraph;
import io.jccl.internal.topology.setup.CommPlan;
import io.jccl.internal.topology.setup.TopoSetup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RingsAndPostsetTest {

    @Test
    void buildRingsChecksLoopAndMembership() {
        int[] next = {1, 2, 3, 0, 2, 0, 3, 1}; // ring 0: 0 1 2 3; ring 1: 0 2 3 1
        int[][] rings = RingBuilder.buildRings(2, 1, 4, next);
        assertThat(rings[0]).containsExactly(1, 2, 3, 0);
        assertThat(rings[1]).containsExactly(1, 0, 2, 3);
        assertThatThrownBy(() -> RingBuilder.buildRings(1, 0, 4, new int[] {1, 2, 0, 3}))
                .isInstanceOfSatisfying(JcclException.class, e -> {
                    assertThat(e.result()).isEqualTo(Result.INTERNAL_ERROR);
                    assertThat(e.getMessage()).contains("ring 0 does not loop back to start");
                });
        assertThatThrownBy(() -> RingBuilder.buildRings(1, 0, 4, new int[] {1, 0, 3, 2}))
                .hasMessageContaining("ring 0 does not contain rank 2");
        assertThatThrownBy(() -> RingBuilder.buildRings(1, 0, 2, new int[] {5, 0})).hasMessageContaining("outside");
    }

    @Test
    void twoNodesOfTwoGpus() {
        // Node graphs (see GraphSearchTest): ring NET0 GPU0 GPU1 NET0, balanced tree over GPU0, GPU1; 1 channel each,
        // so 1 channel, doubled to 2. Ranks 0,1 on node 0 and 2,3 on node 1.
        CommPlan plan = TopoSetup.simulate(Fixtures.xml(Fixtures.TWO_GPU_NIC_NODE), 4, 0, TopoParams.defaults(), 0, 0,
                2, 6);
        CommChannels ch = plan.channels();
        assertThat(plan.nNodes()).isEqualTo(2);
        assertThat(ch.nChannels()).isEqualTo(2);
        // Rings: node 0's last GPU (1) sends to node 1's first (2), node 1's last (3) to node 0's first (0).
        assertThat(ch.ringOrder(0, 0)).containsExactly(0, 1, 2, 3);
        assertThat(ch.ringOrder(1, 0)).containsExactly(0, 1, 2, 3);
        assertThat(ch.ringPrev()[0]).containsExactly(3, 0, 1, 2);
        // Balanced tree: GPU0 faces the parent and child 1, GPU1 child 0. Double binary tree over 2 nodes:
        // tree 0 = node 0 root with node 1 as its second child (-> from GPU0 of node 0 to GPU0 of node 1 = rank 2);
        // tree 1 = mirror: node 1 root, node 0 its second child (rank 2 -> rank 0).
        assertThat(ch.treeUp()[0]).containsExactly(-1, 0, 0, 2);
        assertThat(ch.treeDown()[0][0]).containsExactly(1, 2, -1);
        assertThat(ch.treeDown()[0][2]).containsExactly(3, -1, -1);
        assertThat(ch.treeUp()[1]).containsExactly(2, 0, -1, 2);
        assertThat(ch.treeDown()[1][2]).containsExactly(3, 0, -1);
        assertThat(ch.treeRoot(0)).isZero();
        assertThat(ch.treeRoot(1)).isEqualTo(2);
        assertThat(ch.treeDepth()).isEqualTo(2); // 4/2 - 1 + log2(2)
    }

    @Test
    void railAlternationSwapsOddNodesChannelPairs() {
        // Two nodes of 2 ranks, 2 channels. Node 0 runs 0 1 on both channels; node 1 runs 2 3 on channel 0 and 3 2 on
        // channel 1. With crossNic=2, node 1 (odd) swaps its channels 0 and 1.
        TopoGraph tree0 = TopoGraph.ordered(1, GraphPattern.TREE, new int[] {0, 1}, 1, 10, PathType.NVL);
        TopoGraph tree1 = TopoGraph.ordered(1, GraphPattern.TREE, new int[] {2, 3}, 1, 10, PathType.NVL);
        TopoGraph ring0 = TopoGraph.ordered(0, GraphPattern.RING, new int[] {0, 1}, 1, 10, PathType.NVL);
        TopoGraph ring1a = TopoGraph.ordered(0, GraphPattern.RING, new int[] {2, 3}, 1, 10, PathType.NVL);
        TopoGraph ring1b = TopoGraph.ordered(0, GraphPattern.RING, new int[] {3, 2}, 1, 10, PathType.NVL);
        List<TopoRanks> ranks = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            TopoRanks one = ChannelPreset.preset(r, 1, ring0, tree0);
            ranks.add(join(one, one));
        }
        for (int r = 2; r < 4; r++) {
            ranks.add(join(ChannelPreset.preset(r, 1, ring1a, tree1), ChannelPreset.preset(r, 1, ring1b, tree1)));
        }
        CommChannels noSwap = ChannelPostset.postset(new int[] {0, 0, 1, 1}, ranks, 2, 0, 0, 0);
        CommChannels swap = ChannelPostset.postset(new int[] {0, 0, 1, 1}, ranks, 2, 2, 0, 0);
        assertThat(noSwap.ringOrder(0, 0)).containsExactly(0, 1, 2, 3);
        assertThat(noSwap.ringOrder(1, 0)).containsExactly(0, 1, 3, 2);
        assertThat(swap.ringOrder(0, 0)).containsExactly(0, 1, 3, 2);
        assertThat(swap.ringOrder(1, 0)).containsExactly(0, 1, 2, 3);
        // the caller's TopoRanks are not modified
        assertThat(ranks.get(2).ringRecv()).containsExactly(2, 3);
    }

    private static TopoRanks join(TopoRanks a, TopoRanks b) {
        return new TopoRanks(cat(a.ringRecv(), b.ringRecv()), cat(a.ringSend(), b.ringSend()),
                cat(a.ringPrev(), b.ringPrev()), cat(a.ringNext(), b.ringNext()), cat(a.treeToParent(), b.treeToParent()),
                cat(a.treeToChild0(), b.treeToChild0()), cat(a.treeToChild1(), b.treeToChild1()),
                cat(a.treeUp(), b.treeUp()), cat(a.treeDown(), b.treeDown()));
    }

    private static int[] cat(int[] a, int[] b) {
        int[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Test
    void minAndMaxChannels() {
        CommPlan capped = TopoSetup.simulate(Fixtures.xml(Fixtures.NVLINK_PAIR), 2, 0, TopoParams.defaults(), 0, 5, 2,
                6);
        assertThat(capped.channels().nChannels()).isEqualTo(5);
        CommPlan raised = TopoSetup.simulate(Fixtures.xml(Fixtures.PCIE_2SOCKET), 4, 0, TopoParams.defaults(), 7, 0,
                2, 6);
        // 1 channel searched, doubled to 2, copied round-robin up to 7.
        assertThat(raised.channels().nChannels()).isEqualTo(7);
        for (int c = 0; c < 7; c++) {
            assertThat(raised.channels().ringOrder(c, 0)).containsExactly(0, 1, 2, 3);
        }
    }

    @ParameterizedTest
    @CsvSource({"dgx-h100.xml,8", "dgx-h100.xml,16", "dgx-h100.xml,40", "dgx-h100.xml,1024",
        "two-gpu-one-nic-node.xml,2", "two-gpu-one-nic-node.xml,6", "two-gpu-one-nic-node.xml,14",
        "pcie-2socket.xml,12"})
    void everyRingIsAPermutationAndEveryTreeIsATree(String fixture, int nRanks) {
        CommPlan plan = TopoSetup.simulate(Fixtures.xml(fixture), nRanks, 0, TopoParams.defaults(), 0, 0, 2, 6);
        CommChannels ch = plan.channels();
        assertThat(ch.nChannels()).isBetween(1, 64);
        for (int c = 0; c < ch.nChannels(); c++) {
            int[] order = ch.ringOrder(c, 0);
            assertThat(Arrays.stream(order).sorted().toArray()).isEqualTo(range(nRanks));
            for (int r = 0; r < nRanks; r++) {
                assertThat(ch.ringPrev()[c][ch.ringNext()[c][r]]).isEqualTo(r);
            }
            int roots = 0;
            int edges = 0;
            for (int r = 0; r < nRanks; r++) {
                int up = ch.treeUp()[c][r];
                if (up == -1) {
                    roots++;
                } else {
                    assertThat(ch.treeDown()[c][up]).as("channel %d: %d's parent %d", c, r, up).contains(r);
                }
                for (int d : ch.treeDown()[c][r]) {
                    if (d != -1) {
                        assertThat(ch.treeUp()[c][d]).isEqualTo(r);
                        edges++;
                    }
                }
            }
            assertThat(roots).as("channel %d roots", c).isEqualTo(1);
            assertThat(edges).isEqualTo(nRanks - 1);
        }
    }

    private static int[] range(int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = i;
        }
        return r;
    }

    @Test
    void unevenNodesAreRefused() {
        assertThatThrownBy(() -> TopoSetup.simulate(Fixtures.xml(Fixtures.DGX_H100), 12, 0, TopoParams.defaults(), 0,
                0, 2, 6)).hasMessageContaining("12 ranks do not fill nodes of 8 ranks evenly");
        assertThatThrownBy(() -> TopoSetup.simulate(Fixtures.xml(Fixtures.DGX_H100), 16, 9, TopoParams.defaults(), 0,
                0, 2, 6)).hasMessageContaining("only 8 GPUs");
    }
}
