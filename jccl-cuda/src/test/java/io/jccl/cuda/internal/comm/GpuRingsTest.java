package io.jccl.cuda.internal.comm;

import io.jccl.cuda.testing.RingGraphFile;
import io.jccl.internal.topology.TopoEnv;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The GPU ring search on made-up GPUs (no CUDA): rings follow the NVLinks, obey NCCL_GRAPH_FILE, fall back in order. */
class GpuRingsTest {
    private static final List<String> FOUR = List.of("0000:11:00.0", "0000:12:00.0", "0000:13:00.0", "0000:14:00.0");

    private static int[][] links(int n, int[][] pairs) {
        int[][] m = new int[n][n];
        for (int[] p : pairs) {
            m[p[0]][p[1]] = 2;
            m[p[1]][p[0]] = 2;
        }
        return m;
    }

    @Test
    void acrossHostsTheRingKeepsEachHostsRanksTogether() {
        assertThat(GpuRings.byHost(new long[] {7, 9, 7, 9})).isDeepEqualTo(new int[][] {{0, 2, 1, 3}});
        assertThat(GpuRings.byHost(new long[] {5, 5, 3, 4, 3})).isDeepEqualTo(new int[][] {{0, 1, 2, 4, 3}});
        assertThat(GpuRings.byHost(new long[] {1, 2, 3})).isDeepEqualTo(GpuRings.inOrder(3));
        int[] ring = GpuRings.byHost(new long[] {4, 8, 4, 8, 6, 4, 8, 6})[0];
        int crossings = 0;
        long[] hosts = {4, 8, 4, 8, 6, 4, 8, 6};
        for (int i = 0; i < ring.length; i++) {
            crossings += hosts[ring[i]] != hosts[ring[(i + 1) % ring.length]] ? 1 : 0;
        }
        assertThat(crossings).as(java.util.Arrays.toString(ring)).isEqualTo(3);
        assertThat(java.util.Arrays.stream(ring).sorted().toArray()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    }

    @Test
    void fourGpusLinkedInARingGetRingsThatHopOnlyOverNvlink() {
        int[][] nvl = links(4, new int[][]{{0, 2}, {2, 1}, {1, 3}, {3, 0}});
        int[][] rings = GpuRings.search(FOUR, 90, nvl, TopoEnv.empty());
        assertThat(rings).isNotEmpty();
        for (int[] ring : rings) {
            assertThat(ring[0]).isZero();
            assertThat(ring).containsExactlyInAnyOrder(0, 1, 2, 3);
            for (int p = 0; p < 4; p++) {
                assertThat(nvl[ring[p]][ring[(p + 1) % 4]] > 0).as("hop %d of %s", p, GpuRings.describe(rings)).isTrue();
            }
        }
        assertThat(rings[0]).isNotEqualTo(new int[]{0, 1, 2, 3});
    }

    @Test
    void ranksSharingAGpuAreSearchedAsAGpuEach() {
        List<String> shared = List.of(FOUR.get(0), FOUR.get(0), FOUR.get(0));
        List<String> ids = GpuRings.onePerRank(shared);
        assertThat(ids).doesNotHaveDuplicates().hasSize(3);
        assertThat(GpuRings.onePerRank(FOUR)).isSameAs(FOUR);
        int[][] rings = GpuRings.search(ids, 90, links(3, new int[][]{{0, 1}, {1, 2}, {2, 0}}), TopoEnv.empty());
        assertThat(rings[0]).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void twoLinkedGpusMakeOneRing() {
        int[][] rings = GpuRings.search(FOUR.subList(0, 2), 90, links(2, new int[][]{{0, 1}}), TopoEnv.empty());
        assertThat(rings).hasDimensions(1, 2);
        assertThat(rings[0]).containsExactly(0, 1);
        assertThat(GpuRings.search(FOUR.subList(0, 1), 90, new int[1][1], TopoEnv.empty())).isEqualTo(new int[][]{{0}});
    }

    @Test
    void ncclsOwnTopologyDumpOfThe2xH200MachineFindsBothGpusByBusId() {
        Path dump = Path.of("../jccl-core/src/test/resources/topology/nccl-2.28.9-2xH200/topo.xml");
        TopoEnv env = TopoEnv.of(Map.of("NCCL_TOPO_FILE", dump.toString()));
        int[][] nvl = links(2, new int[][]{{0, 1}});
        // 18 NVLinks each to the VM's hidden NVSwitch (fffffff:ff:ff.0) in the dump; the search goes 0 -> 1 -> 0
        assertThat(GpuRings.search(List.of("0000:00:06.0", "0000:00:07.0"), 90, nvl, env)).isEqualTo(new int[][]{{0, 1}});
        assertThat(GpuRings.searchOrInOrder(List.of("0000:00:07.0", "0000:00:06.0"), 90, nvl, env, 0))
                .isEqualTo(new int[][]{{0, 1}});
    }

    @Test
    void gpusWithoutNvlinkStillGetRingsFromTheSearch() {
        int[][] rings = GpuRings.search(FOUR, 90, new int[4][4], TopoEnv.empty());
        assertThat(rings[0]).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(rings[0][0]).isZero();
    }

    @Test
    void graphFileForcesTheRings(@TempDir Path dir) throws IOException {
        Path graph = RingGraphFile.write(dir, new int[]{0, 3, 2, 1}, new int[]{0, 2, 1, 3});
        int[][] all = links(4, new int[][]{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}});
        int[][] rings = GpuRings.search(FOUR, 90, all, TopoEnv.of(Map.of("NCCL_GRAPH_FILE", graph.toString())));
        assertThat(GpuRings.describe(rings)).isEqualTo("0 3 2 1 | 0 2 1 3");
    }

    @Test
    void aTopologyWithoutTheGpusFallsBackToRanksInOrder(@TempDir Path dir) throws IOException {
        Path topo = dir.resolve("topo.xml");
        Files.writeString(topo, """
                <system version="1">
                  <cpu numaid="0" affinity="ff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85"/>
                </system>
                """);
        TopoEnv env = TopoEnv.of(Map.of("NCCL_TOPO_FILE", topo.toString()));
        int[][] nvl = links(4, new int[][]{{0, 2}, {2, 1}, {1, 3}, {3, 0}});
        assertThat(GpuRings.searchOrInOrder(FOUR, 90, nvl, env, 0)).isEqualTo(new int[][]{{0, 1, 2, 3}});
    }
}
