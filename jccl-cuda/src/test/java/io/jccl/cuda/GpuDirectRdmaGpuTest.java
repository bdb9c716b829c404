package io.jccl.cuda;

import io.jccl.cuda.testing.GdrTestNetPlugin;
import io.jccl.cuda.testing.GpuHostsRankMain;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * GPUDirect RDMA across hosts on the CPU emulator: two processes, each a host of its own (NCCL_HOSTID), run every
 * collective and send/recv of {@link GpuHostsRankMain} (allReduce, allGather, broadcast, ... in and out of place,
 * each result checked element by element) over {@link GdrTestNetPlugin} ({@code NCCL_NET=GdrTest}, ptrSupport
 * HOST|CUDA): the receive FIFOs are device memory registered as CUDA memory, each slot is flushed before the kernel
 * may read it, and the log carries NCCL's "GPU Direct RDMA Enabled" and "/GDRDMA". The same job over the built-in
 * Socket plugin logs "Disabled" with its reason.
 */
@Tag("gpu")
class GpuDirectRdmaGpuTest {
    private static List<String> run(Map<String, String> extra) throws Exception {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 2, "needs 2 GPUs (the CPU emulator has them)");
        Map<String, String> env = new java.util.HashMap<>(Map.of("NCCL_HOSTID", "jccl-test-host-{rank}",
                "JCCL_TIMEOUT_MS", "30000", "NCCL_DEBUG", "INFO", "NCCL_DEBUG_SUBSYS", "INIT"));
        env.putAll(extra);
        return GpuProcessesGpuTest.runRanks(2, GpuHostsRankMain.class, env, 400);
    }

    /**
     * The test plugin's loopback NIC has no PCI path, so it sits on the CPU (PHB) as NCCL places such a NIC:
     * NCCL_NET_GDR_LEVEL=PHB allows it. NCCL_NET_GDR_READ=1 puts the send FIFOs in device memory too.
     */
    @Test
    void everyCollectiveRunsWithGpuDirectRdma() throws Exception {
        List<String> outs = run(Map.of("NCCL_NET", "GdrTest", "NCCL_NET_GDR_LEVEL", "PHB", "NCCL_NET_GDR_READ", "1"));
        for (int r = 0; r < 2; r++) {
            String out = outs.get(r);
            assertThat(out).contains("rank " + r + " done, 0 failures", "rank " + r + " closed",
                    "GPU Direct RDMA Enabled for GPU ", " / NET/GdrTest/0 (distance PHB assumed, no PCI path for both"
                            + " <= PHB), read 1",
                    "GPU channel 00 : " + r + " <- " + (1 - r) + " via NET/GdrTest/0/GDRDMA (proxy)",
                    "GPU channel 00 : " + r + " -> " + (1 - r) + " via NET/GdrTest/0/GDRDMA (proxy)",
                    "receive FIFOs in device memory, send FIFOs in device memory", "Destroy COMPLETE")
                    .doesNotContain("WRONG", "GPU Direct RDMA Disabled", "CRC32C per slot", "still runs");
            Matcher m = Pattern.compile("NET/GdrTest : receive comm closed, (\\d+) flushes, (\\d+) CUDA "
                    + "registrations").matcher(out);
            long flushes = 0;
            while (m.find()) {
                flushes = Math.max(flushes, Long.parseLong(m.group(1)));
                assertThat(Long.parseLong(m.group(2))).isPositive();
            }
            assertThat(flushes).as("the proxy flushed each GDR receive before the kernel read it").isPositive();
        }
    }

    /** The built-in Socket plugin registers host memory only: GPUDirect RDMA stays off and the log says why. */
    @Test
    void theSocketPluginKeepsHostMemory() throws Exception {
        List<String> outs = run(Map.of("NCCL_NET_GDR_LEVEL", "SYS"));
        for (int r = 0; r < 2; r++) {
            assertThat(outs.get(r)).contains("rank " + r + " done, 0 failures", "GPU Direct RDMA Disabled for GPU ",
                    " / NET/Socket/0 (NET/Socket registers host memory only (ptrSupport HOST))",
                    "via NET/Socket (proxy), CRC32C per slot",
                    "receive FIFOs in pinned host memory, send FIFOs in pinned host memory")
                    .doesNotContain("WRONG", "GDRDMA", "GPU Direct RDMA Enabled");
        }
    }
}
