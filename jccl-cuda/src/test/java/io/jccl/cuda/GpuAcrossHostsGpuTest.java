package io.jccl.cuda;

import io.jccl.cuda.testing.GpuHostsRankMain;
import io.jccl.cuda.testing.GpuHostsSplitRankMain;
import io.jccl.cuda.testing.GpuTreeRankMain;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import io.jccl.cuda.testing.GpuFaultRankMain;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * GPU communicators across hosts: one process per GPU, each with its own NCCL_HOSTID, so every rank is on a host of
 * its own and the GPU communicator reaches every peer through the network proxy (NET/Socket over loopback) instead
 * of CUDA IPC, with the kernels unchanged. Each child ({@link GpuHostsRankMain}) checks every collective and
 * send/recv at sizes below and above the LL size, in and out of place, on float and int32 sums; here the parent
 * checks that the planner chose only the ring and point-to-point kernels and that the init log named the net
 * transport.
 */
@Tag("gpu")
class GpuAcrossHostsGpuTest {
    @ParameterizedTest(name = "{0} processes on {0} hosts")
    @ValueSource(ints = {2, 3})
    void everyCollectiveRunsOverTheNetProxy(int n) throws Exception {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= n,
                "needs " + n + " GPUs (the processes' kernels run together; the CPU emulator has them)");
        List<String> outs = GpuProcessesGpuTest.runRanks(n, GpuHostsRankMain.class, Map.of("NCCL_HOSTID",
                "jccl-test-host-{rank}", "JCCL_TIMEOUT_MS", "30000", "NCCL_DEBUG", "INFO", "NCCL_DEBUG_SUBSYS",
                "INIT"), 400);
        for (int r = 0; r < n; r++) {
            String out = outs.get(r);
            assertThat(out).contains("rank " + r + " done, 0 failures", "rank " + r + " closed",
                    "GPU Direct RDMA Disabled", "via NET/Socket (proxy), CRC32C per slot",
                    "ranks on " + n + " hosts: rank", " via NET/Socket (proxy)", "allReduce: ring at every size",
                    "allReduce over NET/Socket priced by NCCL's model: 8 B ");
            assertThat(out).doesNotContain("WRONG", "still runs", "did not stop", "P2P/");
            assertThat(out).contains("Destroy COMPLETE");
            for (String line : out.lines().filter(l -> l.contains(" plans ")).toList()) {
                String plan = line.substring(line.indexOf(": ") + 2);
                assertThat(plan).as(line).matches("(ring|ring-ll|p2p) x[12].*");
                if (plan.startsWith("ring")) {
                    assertThat(plan).as(line).matches(".*, [0-9.]+ us predicted by NCCL's model over NET");
                }
            }
            assertThat(out.lines().filter(l -> l.contains(" plans ")).count()).isEqualTo(18);
            // NCCL's model over NET: the LL ring for small calls (one block), the Simple ring for large ones
            assertThat(out).contains("plans AllToAll 5: p2p x1", "plans AllGather 5: ring-ll x1",
                    "plans AllReduce 5: ring-ll x1", "plans AllReduce 140001: ring x2", "plans AllToAll 140001: p2p");
        }
    }

    /**
     * Ranks 0, 2 on one host and 1, 3 on another: the ring keeps each host's ranks together ({@code 0 2 1 3}, two
     * crossings instead of four), the ranks of one host reach each other through CUDA IPC while those of the other
     * host go through the proxy (both transports in one kernel), and every collective still checks out.
     */
    @org.junit.jupiter.api.Test
    void theRingKeepsEachHostsRanksTogether() throws Exception {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 4, "needs 4 GPUs (the CPU emulator has them)");
        List<String> outs = GpuProcessesGpuTest.runRanks(4, GpuHostsRankMain.class, Map.of("NCCL_HOSTID",
                "jccl-test-host-{rank%2}", "JCCL_TIMEOUT_MS", "30000", "NCCL_DEBUG", "INFO", "NCCL_DEBUG_SUBSYS",
                "INIT,GRAPH"), 400);
        for (int r = 0; r < 4; r++) {
            assertThat(outs.get(r)).contains("rank " + r + " done, 0 failures", "ranks on 2 hosts: ",
                    "rank " + (r ^ 2) + " via P2P/IPC", "ranks " + (1 - r % 2) + ", " + (3 - r % 2)
                            + " via NET/Socket (proxy)", "to each of 2 peers on other hosts",
                    "GPU ring across hosts, each host's ranks together: 0 2 1 3").doesNotContain("WRONG");
        }
    }

    /**
     * NCCL's tree for allReduce across hosts, forced with {@code NCCL_ALGO=allreduce:tree} ({@link GpuTreeRankMain}):
     * 2 hosts of 2 ranks (chains 0-2 and 1-3, IPC inside a host, the proxy between the heads) and 3 hosts of 1 rank
     * (the double binary tree over three hosts); every type, every reduction, graphs, each rank's tree in the log.
     */
    @ParameterizedTest(name = "{0} ranks, NCCL_HOSTID {1}")
    @org.junit.jupiter.params.provider.CsvSource({"4, jccl-test-host-{rank%2}", "3, jccl-test-host-{rank}"})
    void theTreeRunsAllReduceAcrossHosts(int n, String hostId) throws Exception {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= n, "needs " + n + " GPUs (the emulator has them)");
        List<String> outs = GpuProcessesGpuTest.runRanks(n, GpuTreeRankMain.class, Map.of("NCCL_HOSTID", hostId,
                "NCCL_ALGO", "allreduce:tree", "JCCL_TIMEOUT_MS", "30000", "NCCL_DEBUG", "INFO", "NCCL_DEBUG_SUBSYS",
                "INIT,GRAPH"), 400);
        // tree 0 over the hosts in ring order: host 0's head is the root; tree 1 is mirrored (2 hosts) or shifted
        String[][] trees = n == 4
                ? new String[][] {{"Trees [0] -1/1/2->0->-1 [1] -1/-1/2->0->1", "plans AllReduce 140001: tree x"},
                    {"Trees [0] -1/-1/3->1->0 [1] -1/0/3->1->-1"}, {"Trees [0] -1/-1/-1->2->0 [1] -1/-1/-1->2->0"},
                    {"Trees [0] -1/-1/-1->3->1 [1] -1/-1/-1->3->1"}}
                : new String[][] {{"Trees [0] -1/2/-1->0->-1 [1] 2/-1/-1->0->1"}, {"Trees [0] -1/-1/-1->1->2"},
                    {"Trees [0] 1/-1/-1->2->0"}};
        for (int r = 0; r < n; r++) {
            assertThat(outs.get(r)).contains("rank " + r + " done, 0 failures", "allReduce: tree at every size",
                    "(Tree/Simple x", "plans AllReduce 5: tree x").contains(trees[r])
                    .doesNotContain("WRONG", "still runs", "did not stop");
            int rank = r;   // 12 types x 4 sizes, 6 reductions x 2 types x in/out of place, 2 more, the graph
            assertThat(outs.get(r).lines().filter(l -> l.startsWith("rank " + rank + " ok ")).count()).isEqualTo(75);
        }
    }

    /**
     * Windows across hosts ({@link GpuWindowRankMain}): putSignal to a rank on another host goes through the NET
     * transport (the proxy copies the source out in slots, the receiving proxy copies them into the window and only
     * then writes the signal). Blocks of 1.3 MiB take three slots each; the ring of puts with acknowledgements runs
     * eagerly and as a replayed CUDA graph, on an allocated and on a registered window, every element checked each
     * round. Two hosts of one rank each, three of one rank each, and two hosts of two ranks each (ranks 0, 1 and
     * 2, 3 share a host, so the ring's puts alternate between CUDA IPC and the network in one window).
     */
    @ParameterizedTest(name = "{0} processes, NCCL_HOSTID {1}")
    @org.junit.jupiter.params.provider.CsvSource({"2, jccl-test-host-{rank}", "3, jccl-test-host-{rank}",
            "4, jccl-test-host-{rank/2}"})
    void putSignalReachesWindowsOnOtherHosts(int n, String hostId) throws Exception {
        assumeTrue(CudaDevice.isAvailable() && (CudaDevice.count() >= n || Boolean.getBoolean("jccl.cuda.shareDevices")),
                "needs " + n + " GPUs (the CPU emulator has them), or one shared (-Djccl.cuda.shareDevices=true)");
        List<String> outs = GpuProcessesGpuTest.runRanks(n, io.jccl.cuda.testing.GpuWindowRankMain.class,
                Map.of("NCCL_HOSTID", hostId, "JCCL_TIMEOUT_MS", "30000", "WINDOW_BLOCK_BYTES",
                        Long.toString(1300L << 10), "NCCL_DEBUG", "INFO", "NCCL_DEBUG_SUBSYS", "INIT"), 300);
        for (int r = 0; r < n; r++) {
            int me = r;
            int[] remote = java.util.stream.IntStream.range(0, n).filter(p -> n == 4 ? p / 2 != me / 2 : p != me)
                    .toArray();
            assertThat(outs.get(r)).contains("rank " + r + " windows ok", "putSignal to rank(s) "
                            + java.util.Arrays.toString(remote) + " on other hosts through NET/Socket, channel 255",
                    "GPU channel 255 : " + r + " -> " + remote[0] + " via NET/Socket (proxy), CRC32C per slot")
                    .doesNotContain("WRONG", "still runs", "did not stop");
        }
    }

    /**
     * The rest of the API across hosts ({@link GpuHostsSplitRankMain}): two processes, each a host of its own and each
     * driving two GPUs ({@code fromEnvironment} with a device list), then {@code split} by rank parity (one rank on
     * each host per new communicator) and {@code shrink} by the last rank; every result checked element by element.
     */
    @Test
    void severalGpusPerProcessSplitAndShrinkAcrossHosts() throws Exception {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 4,
                "needs 4 GPUs (two processes of two; the CPU emulator has them)");
        List<String> outs = GpuProcessesGpuTest.runRanks(2, GpuHostsSplitRankMain.class, Map.of("NCCL_HOSTID",
                "jccl-test-host-{rank}", "JCCL_TIMEOUT_MS", "60000", "NCCL_DEBUG", "INFO", "NCCL_DEBUG_SUBSYS",
                "INIT"), 300);
        for (int p = 0; p < 2; p++) {
            String out = outs.get(p);
            // world ranks 2p and 2p+1; parity splits {0, 2} and {1, 3}, where both of this process's ranks are p;
            // the shrink drops rank 3, so process 1 keeps rank 2 alone
            assertThat(out).contains("process " + p + " done, 0 failures", "GPU Direct RDMA Disabled",
                    "rank " + (2 * p ^ 1) + " via P2P/direct",
                    "world ranks [" + 2 * p + "/4, " + (2 * p + 1) + "/4] of 4: ok",
                    "split ranks [" + p + "/2, " + p + "/2] of 2: ok",
                    p == 0 ? "shrink ranks [0/3, 1/3] of 3: ok" : "shrink ranks [2/3] of 3: ok")
                    .doesNotContain("WRONG", "still runs", "did not stop");
        }
    }

    /**
     * Failures across hosts, as on one host ({@link GpuFaultRankMain}): each process is a host of its own, so the
     * processes share no memory (no abort area, no call ledger): what stops the other rank travels over the network.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"crash", "abort", "mismatch-shared", "window-crash"})
    void aFailureOnOneHostStopsTheOther(String scenario) throws Exception {
        List<String> outs = GpuProcessesGpuTest.runRanks(2, GpuFaultRankMain.class, Map.of("GPU_TEST_FAULT", scenario,
                "NCCL_HOSTID", "jccl-test-host-{rank}", "JCCL_TIMEOUT_MS", "60000"), 120);
        switch (scenario) {
            case "crash" -> {
                assertThat(outs.get(1)).contains("rank 1 halts");
                assertThat(outs.get(0)).contains("rank 0/2", "rank 1", "rank 0 shrunk to 1 rank(s), sum 7.0");
                assertThat(stoppedAfterMs(outs.get(0))).as("stopped by the lost peer").isLessThan(45_000);
            }
            case "window-crash" -> {   // a wait for a putSignal from a dead host ends, naming it; close returns
                assertThat(outs.get(1)).contains("rank 1 halts");
                assertThat(outs.get(0)).contains("rank 0/2", "rank 1", "rank 0 window close");
                assertThat(stoppedAfterMs(outs.get(0))).as("stopped by the lost peer").isLessThan(45_000);
            }
            case "abort" -> {
                assertThat(outs.get(1)).contains("rank 1 aborted");
                assertThat(outs.get(0)).contains("rank 0 ABORTED", "rank 1", "abort()");
                assertThat(stoppedAfterMs(outs.get(0))).as("stopped by the abort").isLessThan(30_000);
            }
            default -> {
                for (int r = 0; r < 2; r++) {
                    assertThat(outs.get(r)).contains("rank " + r + " INVALID_USAGE", "AllReduce(count 1000",
                            "AllReduce(count 2000", "rank " + r + " next call INVALID_USAGE");
                }
            }
        }
    }

    /**
     * Launches across hosts allocate nothing on the heap in steady state, the call ledger's messages to the other
     * host included (as {@link GpuAllocationGpuTest} checks on one host).
     */
    @org.junit.jupiter.api.Test
    void launchingAcrossHostsAllocatesNothing() throws Exception {
        List<String> outs = GpuProcessesGpuTest.runRanks(2, io.jccl.cuda.testing.GpuAllocRankMain.class,
                Map.of("NCCL_HOSTID", "jccl-test-host-{rank}", "JCCL_TIMEOUT_MS", "30000"), 180);
        for (int r = 0; r < 2; r++) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("rank " + r + " allocated (\\d+) bytes")
                    .matcher(outs.get(r));
            assertThat(m.find()).as(outs.get(r)).isTrue();
            System.out.println("across hosts: " + m.group());
            // measured 40; an object of 16 bytes per launch (50) would exceed it
            assertThat(Long.parseLong(m.group(1))).as(outs.get(r)).isLessThanOrEqualTo(512);
        }
    }

    private static long stoppedAfterMs(String out) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("rank 0 stopped after (\\d+) ms").matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return Long.parseLong(m.group(1));
    }
}
