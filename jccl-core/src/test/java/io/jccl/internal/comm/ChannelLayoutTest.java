package io.jccl.internal.comm;

import io.jccl.internal.algorithm.Ring;
import io.jccl.internal.algorithm.Tree;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hierarchical rings and double binary trees of host communicators, planned from the ranks' host hashes, against
 * hand-derived expectations (golden): rings cross the network once per host and direction however the ranks are
 * interleaved; trees are NCCL's double binary tree over hosts with a chain inside each host.
 */
class ChannelLayoutTest {

    private static ChannelLayout[] all(long[] hosts, int nChannels) {
        ChannelLayout[] l = new ChannelLayout[hosts.length];
        for (int r = 0; r < hosts.length; r++) {
            l[r] = ChannelLayout.of(hosts, r, nChannels);
        }
        return l;
    }

    private static int crossings(Ring ring, long[] hosts) {
        int n = 0;
        for (int i = 0; i < ring.nRanks(); i++) {
            int a = ring.userRanks()[i];
            int b = ring.userRanks()[(i + 1) % ring.nRanks()];
            n += hosts[a] != hosts[b] ? 1 : 0;
        }
        return n;
    }

    private static int[] ups(ChannelLayout[] l, int c, int t) {
        return Arrays.stream(l).mapToInt(x -> x.trees()[c][t].up()).toArray();
    }

    private static int[] down(ChannelLayout[] l, int c, int t, int rank) {
        return l[rank].trees()[c][t].down();
    }

    @Test
    void oneHostKeepsTheIdentityRing() {
        long[] hosts = {7, 7, 7, 7, 7};
        for (ChannelLayout l : all(hosts, 3)) {
            for (Ring r : l.rings()) {
                assertThat(r.userRanks()).containsExactly(0, 1, 2, 3, 4);
            }
        }
    }

    @Test
    void interleavedHostsGetOneCrossingPerHost() {
        long[] hosts = {10, 20, 10, 20};
        ChannelLayout[] l = all(hosts, 2);
        assertThat(l[0].rings()[0].userRanks()).containsExactly(0, 2, 1, 3);
        // channel 1 enters each host through its second rank: 2 -> 0 -> 3 -> 1 -> 2, listed from rank 0
        assertThat(l[0].rings()[1].userRanks()).containsExactly(0, 3, 1, 2);
        for (int r = 0; r < hosts.length; r++) {
            for (Ring ring : l[r].rings()) {
                assertThat(crossings(ring, hosts)).isEqualTo(2);
                assertThat(ring.userRanks()[ring.index()]).isEqualTo(r);
            }
        }
        // tree 0 of channel 0: host 10 (chain 0 -> 2) is the root, host 20 (chain 1 -> 3) its child
        assertThat(ups(l, 0, 0)).containsExactly(-1, 0, 0, 1);
        assertThat(down(l, 0, 0, 0)).containsExactly(2, 1);
        assertThat(down(l, 0, 0, 1)).containsExactly(3);
        // tree 1 mirrored: host 20 is the root
        assertThat(ups(l, 0, 1)).containsExactly(1, -1, 0, 1);
        assertThat(down(l, 0, 1, 1)).containsExactly(3, 0);
        assertThat(down(l, 0, 1, 0)).containsExactly(2);
        // channel 1's chains start at each host's second rank: 2 -> 0 and 3 -> 1
        assertThat(ups(l, 1, 0)).containsExactly(2, 3, -1, 2);
        assertThat(l[0].trees()[1][1].connChannel()).isEqualTo(3);
        assertThat(l[0].trees()[1][0].connChannel()).isEqualTo(1);
    }

    @Test
    void threeHostsTreesAreShiftedSoEachHostIsInteriorInOne() {
        // host a: ranks 0, 3; host b: 1; host c: 2, 4, 5
        long[] hosts = {1, 2, 3, 1, 3, 3};
        ChannelLayout[] l = all(hosts, 1);
        assertThat(l[0].rings()[0].userRanks()).containsExactly(0, 3, 1, 2, 4, 5);
        assertThat(crossings(l[0].rings()[0], hosts)).isEqualTo(3);
        // tree 0 over hosts (0, 1, 2) = (a, b, c): a root -> c -> b; leaders 0, 1, 2
        assertThat(ups(l, 0, 0)).containsExactly(-1, 2, 0, 0, 2, 4);
        assertThat(down(l, 0, 0, 0)).containsExactly(3, 2);
        assertThat(down(l, 0, 0, 2)).containsExactly(4, 1);
        assertThat(down(l, 0, 0, 1)).isEmpty();
        // tree 1 shifted by one: b root -> a -> c
        assertThat(ups(l, 0, 1)).containsExactly(1, -1, 0, 0, 2, 4);
        assertThat(down(l, 0, 1, 1)).containsExactly(0);
        assertThat(down(l, 0, 1, 0)).containsExactly(3, 2);
        assertThat(down(l, 0, 1, 2)).containsExactly(4);
    }

    @Test
    void fourHostsDoubleBinaryTree() {
        long[] hosts = {5, 6, 7, 8};
        ChannelLayout[] l = all(hosts, 1);
        assertThat(ups(l, 0, 0)).containsExactly(-1, 2, 0, 2);
        assertThat(down(l, 0, 0, 0)).containsExactly(2);
        assertThat(down(l, 0, 0, 2)).containsExactly(1, 3);
        assertThat(ups(l, 0, 1)).containsExactly(1, 3, 1, -1);
        assertThat(down(l, 0, 1, 3)).containsExactly(1);
        assertThat(down(l, 0, 1, 1)).containsExactly(2, 0);
    }

    @ParameterizedTest(name = "{0} hosts")
    @ValueSource(ints = {2, 3, 4, 5, 6, 7, 8, 13, 16})
    void everyHostLeaderIsInteriorInAtMostOneTreeAndTreesSpanAllRanks(int nHosts) {
        long[] hosts = new long[nHosts * 2];
        for (int r = 0; r < hosts.length; r++) {
            hosts[r] = 100 + (r % nHosts);
        }
        ChannelLayout[] l = all(hosts, 2);
        for (int c = 0; c < 2; c++) {
            int[] interior = new int[hosts.length];
            for (int t = 0; t < 2; t++) {
                int roots = 0;
                for (int r = 0; r < hosts.length; r++) {
                    Tree tr = l[r].trees()[c][t];
                    long me = hosts[r];
                    roots += tr.isRoot() ? 1 : 0;
                    long crossKids = Arrays.stream(tr.down()).filter(d -> hosts[d] != me).count();
                    interior[r] += crossKids > 0 && !tr.isRoot() ? 1 : 0;
                    for (int d : tr.down()) {
                        assertThat(l[d].trees()[c][t].up()).isEqualTo(r);
                    }
                    // walking up reaches the root without cycles
                    int x = r;
                    for (int steps = 0; !l[x].trees()[c][t].isRoot(); steps++) {
                        assertThat(steps).isLessThan(hosts.length);
                        x = l[x].trees()[c][t].up();
                    }
                }
                assertThat(roots).isEqualTo(1);
            }
            for (int r = 0; r < hosts.length; r++) {
                assertThat(interior[r]).as("rank %d interior towards other hosts in both trees", r).isLessThanOrEqualTo(1);
            }
        }
    }
}
