package io.jccl.internal.ras;

import io.jccl.Collective;
import io.jccl.internal.ras.RasMessages.PeerStatus;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Who watches whom, and the stuck-operation diagnosis of the status report. */
class WatchSetTest {
    @Test
    void watchingIsSymmetricSparseAndEveryRankIsWatched() {
        for (int n : new int[] {1, 2, 3, 16, 17, 64, 1000}) {
            int[][] sets = new int[n][];
            for (int r = 0; r < n; r++) {
                sets[r] = PeerMonitor.watchSet(r, n);
                assertThat(sets[r]).doesNotContain(r);
                if (n > PeerMonitor.FULL_MESH_MAX) {
                    assertThat(sets[r].length).as("n=%d rank %d watches few peers", n, r).isLessThanOrEqualTo(4);
                } else {
                    assertThat(sets[r]).hasSize(n - 1);
                }
            }
            assertSymmetric(n, sets);
            for (int r = 0; r < n && n > 1; r++) {
                assertThat(sets[r]).as("n=%d: rank %d is watched by someone", n, r).isNotEmpty();
            }
        }
    }

    @Test
    void noticesReachEveryRankInAboutLog2HopsOverFewPeersEach() {
        for (int n : new int[] {2, 16, 17, 100, 256, 1024}) {
            int[][] sets = new int[n][];
            int log2 = 32 - Integer.numberOfLeadingZeros(n - 1);
            for (int r = 0; r < n; r++) {
                sets[r] = PeerMonitor.relaySet(r, n);
                assertThat(sets[r]).doesNotContain(r);
                if (n > PeerMonitor.FULL_MESH_MAX) {
                    assertThat(sets[r].length).as("n=%d rank %d relays to few peers", n, r)
                            .isLessThanOrEqualTo(2 * log2);
                }
            }
            assertSymmetric(n, sets);
            int[] hops = new int[n];
            Arrays.fill(hops, -1);
            hops[n / 3] = 0;
            java.util.ArrayDeque<Integer> q = new java.util.ArrayDeque<>(List.of(n / 3));
            while (!q.isEmpty()) {
                int r = q.poll();
                for (int p : sets[r]) {
                    if (hops[p] < 0) {
                        hops[p] = hops[r] + 1;
                        q.add(p);
                    }
                }
            }
            assertThat(Arrays.stream(hops).min().orElse(0)).as("n=%d: every rank is reached", n).isZero();
            assertThat(Arrays.stream(hops).max().orElse(0)).as("n=%d: hops", n).isLessThanOrEqualTo(log2);
        }
    }

    private static void assertSymmetric(int n, int[][] sets) {
        for (int r = 0; r < n; r++) {
            for (int p : sets[r]) {
                assertThat(Arrays.binarySearch(sets[p], r)).as("n=%d: %d links %d, so %d links %d", n, r, p, p, r)
                        .isGreaterThanOrEqualTo(0);
            }
        }
    }

    @Test
    void theReportNamesRanksThatHaveNotReachedTheStuckOperationAndWhoTheWaitersWaitFor() {
        StatusReport.Row[] rows = {
            new StatusReport.Row(0, "h", 1, "alive", new PeerStatus(9, 8, Collective.ALL_REDUCE, 5000,
                    "rank 0 receiving from rank 3 (channel 0, SHM): waiting for data")),
            new StatusReport.Row(1, "h", 2, "alive", new PeerStatus(9, 8, Collective.ALL_REDUCE, 5000,
                    "rank 1 sending to rank 2 (channel 0, SHM): waiting for credits")),
            new StatusReport.Row(2, "h", 3, "alive", new PeerStatus(8, 8, Collective.ALL_REDUCE, 0, "")),
            new StatusReport.Row(3, "h", 4, "LOST", null),
        };
        List<String> d = StatusReport.diagnose(new StatusReport.Comm("c", null, 0, 4, null, rows));
        assertThat(d).containsExactly("operation seq 9 is in flight; ranks [2] have not issued it yet; "
                + "no status from ranks [3]; its waiting ranks wait for ranks [2, 3]");
        String text = StatusReport.format(1, "h", List.of(new StatusReport.Comm("c", "n", 0, 4, "boom", rows)));
        assertThat(text).contains("FAILED: boom").contains("AllReduce seq 9 (5000 ms)").contains("LOST");
    }
}
