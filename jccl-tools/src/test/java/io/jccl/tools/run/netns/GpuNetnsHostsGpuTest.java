package io.jccl.tools.run.netns;

import io.jccl.cuda.CudaDevice;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * GPU communicators across real network-namespace hosts (each its own network stack, joined by veths): the ranks
 * find their hosts by the host hash (the namespace is part of it, no NCCL_HOSTID), pick their GPU by the launcher's
 * local rank, and reach the other host through the net transport. Every collective is verified, CUDA graphs of
 * allReduces are captured and replayed with no host work per replay, and a link fault
 * while allReduces run ends either in verified results (a 0.5 s blip) or a clear error, never a hang or a wrong
 * element. Runs on the CPU emulator of the driver in CI (every rank emulates its own GPUs).
 */
@Tag("gpu")
class GpuNetnsHostsGpuTest {
    private static final long JCCL_TIMEOUT_MS = 3_000;
    /** The limit of the blip test: 20 times the outage. */
    private static final long BLIP_TIMEOUT_MS = 10_000;
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(150);

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} hosts x {1} GPU(s)")
    @CsvSource({"2, 2", "3, 1"})
    void everyCollectiveAcrossNamespaceHosts(int nHosts, int perHost) {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= perHost, "needs " + perHost + " GPU(s) a host");
        try (NetnsHosts hosts = NetnsHosts.create(nHosts, null)) {
            HostJobs.Outcome o = HostJobs.run(hosts, dir, perHost, JOB_TIMEOUT, Map.of("JCCL_TIMEOUT_MS", "30000",
                    "NCCL_DEBUG", "INFO", "NCCL_DEBUG_SUBSYS", "INIT"), new HostJobs.Live(), GpuCrossHostCheck.class,
                    "all");
            assertThat(o.result().exitCode()).as(o.all()).isZero();
            for (int r = 0; r < nHosts * perHost; r++) {
                assertThat(o.out()).as(o.all()).contains("[" + r + "] ALL OK " + nHosts * perHost + " GPU ranks, rank "
                        + r + " on GPU " + r % perHost + ", local " + r % perHost + "/" + perHost);
            }
            assertThat(o.out()).contains("[0] OK 3 replays of a captured graph of 3 allReduces");
            assertThat(o.all()).contains("ranks on " + nHosts + " hosts", "GPU Direct RDMA Disabled")
                    .doesNotContain("WRONG");
        }
    }

    @Test
    void aShortBlipIsRiddenOutWithVerifiedResults() throws Exception {
        // 0.5 s down, under a limit that leaves room for TCP's retransmission backoff (the first resend after an
        // outage can come over a second after the link is back) and for emulated kernels on a loaded 2-core machine:
        // at a 3 s limit this failed once in CI, the kernel timing out while its peer's step was still being resent
        HostJobs.Outcome o = linkDownUp(500, 4, BLIP_TIMEOUT_MS);
        assertThat(o.result().exitCode()).as("TCP retransmits across a 0.5 s outage: " + o.all()).isZero();
        assertThat(o.out()).contains("[0] DONE", "[1] DONE");
    }

    @Test
    void aLinkDownLongerThanTheTimeoutEndsInAClearErrorNeverAHang() throws Exception {
        HostJobs.Outcome o = linkDownUp(2 * JCCL_TIMEOUT_MS, 20, JCCL_TIMEOUT_MS);
        if (o.result().exitCode() != 0) {
            assertThat(o.out()).as(o.all()).containsPattern("JCCL_ERROR (REMOTE_ERROR|TIMEOUT) .*rank [01]");
        }
    }

    private HostJobs.Outcome linkDownUp(long downMs, int loopSeconds, long timeoutMs) throws Exception {
        assumeTrue(CudaDevice.isAvailable(), "needs a GPU or the emulator");
        try (NetnsHosts hosts = NetnsHosts.create(2, null)) {
            CompletableFuture<HostJobs.Outcome> job = new CompletableFuture<>();
            HostJobs.Live live = new HostJobs.Live();
            Thread.ofPlatform().name("gpu-link-test-job").daemon().start(() -> {
                try {
                    job.complete(HostJobs.run(hosts, dir, 1, JOB_TIMEOUT, Map.of(
                            "JCCL_TIMEOUT_MS", Long.toString(timeoutMs),
                            "JCCL_HEARTBEAT_TIMEOUT_MS", Long.toString(timeoutMs)), live,
                            GpuCrossHostCheck.class, "loop", Integer.toString(loopSeconds)));
                } catch (Throwable t) {
                    job.completeExceptionally(t);
                }
            });
            assertThat(live.awaitLine("[1] progress", 90_000)).as("the job got going: " + live.text()).isTrue();
            long downAt = System.nanoTime();
            hosts.setLink(1, false);
            Thread.sleep(downMs);
            hosts.setLink(1, true);
            HostJobs.Outcome o = job.get(120, TimeUnit.SECONDS);
            long endedMs = (System.nanoTime() - downAt) / 1_000_000;
            assertThat(o.result().timedOut()).as("a hang: " + o.all()).isFalse();
            assertThat(o.out()).as(o.all()).doesNotContain("WRONG");
            System.out.printf("GPU link down %d ms: exit %d after %d ms from link down%n", downMs,
                    o.result().exitCode(), endedMs);
            if (o.result().exitCode() != 0) {
                assertThat(endedMs).as("ended %d ms after the link went down", endedMs).isLessThan(60_000);
            }
            return o;
        }
    }
}
