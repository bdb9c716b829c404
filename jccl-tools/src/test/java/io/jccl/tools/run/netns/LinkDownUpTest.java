package io.jccl.tools.run.netns;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A namespace link fault: while verified allReduces run across two namespace hosts, host 1's link goes down for
 * longer than the JCCL timeout and comes back. Whatever happens must be one of two things: a clear REMOTE_ERROR or
 * TIMEOUT naming the lost peer, with the launcher exiting non-zero well within the job timeout, or every result
 * verified and a clean exit. Never a hang (the launcher's own timeout firing) and never a wrong element.
 */
class LinkDownUpTest {
    private static final long JCCL_TIMEOUT_MS = 3_000;
    private static final long LINK_DOWN_MS = 6_000;
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(90);
    /** From the link going down: the JCCL deadline, the launcher's report grace and stop, and slack for 2 cores. */
    private static final long END_BOUND_MS = 40_000;

    @TempDir
    Path dir;

    @Test
    void aLinkDownLongerThanTheTimeoutEndsInAClearErrorOrVerifiedResultsNeverAHang() throws Exception {
        HostJobs.Outcome o = linkDownUp(LINK_DOWN_MS, 25);
        // with the link down twice as long as the deadline, today's JCCL reports the loss (both outcomes are legal)
        System.out.println("long outage outcome: exit " + o.result().exitCode());
    }

    @Test
    void aShortBlipWithinTheTimeoutIsRiddenOutWithVerifiedResults() throws Exception {
        HostJobs.Outcome o = linkDownUp(JCCL_TIMEOUT_MS / 6, 4);
        assertThat(o.result().exitCode()).as("TCP retransmits across a 0.5 s outage: " + o.all()).isZero();
    }

    /** Runs verified allReduces for {@code loopSeconds} across 2 hosts; host 1's link is down for {@code downMs}. */
    private HostJobs.Outcome linkDownUp(long downMs, int loopSeconds) throws Exception {
        try (NetnsHosts hosts = NetnsHosts.create(2, null)) {
            CompletableFuture<HostJobs.Outcome> job = new CompletableFuture<>();
            HostJobs.Live live = new HostJobs.Live();
            Thread.ofPlatform().name("link-test-job").daemon().start(() -> {
                try {
                    job.complete(HostJobs.run(hosts, dir, 1, JOB_TIMEOUT, Map.of(
                            "JCCL_TIMEOUT_MS", Long.toString(JCCL_TIMEOUT_MS),
                            "JCCL_HEARTBEAT_TIMEOUT_MS", Long.toString(JCCL_TIMEOUT_MS)), live, "loop",
                            Integer.toString(loopSeconds)));
                } catch (Throwable t) {
                    job.completeExceptionally(t);
                }
            });
            assertThat(live.awaitLine("[1] progress", 60_000)).as("the job got going: " + live.text()).isTrue();

            long downAt = System.nanoTime();
            hosts.setLink(1, false);
            Thread.sleep(downMs);
            hosts.setLink(1, true);

            HostJobs.Outcome o = job.get(END_BOUND_MS, TimeUnit.MILLISECONDS);
            long endedMs = (System.nanoTime() - downAt) / 1_000_000;
            assertThat(o.result().timedOut()).as("a hang: " + o.all()).isFalse();
            assertThat(o.out()).as(o.all()).doesNotContain("WRONG");
            if (o.result().succeeded()) {
                assertThat(o.out()).as(o.all()).contains("[0] DONE").contains("[1] DONE");
            } else {
                assertThat(o.out()).as(o.all()).containsPattern("JCCL_ERROR (REMOTE_ERROR|TIMEOUT) .*rank [01]");
                assertThat(endedMs).as("ended %d ms after the link went down", endedMs).isLessThan(END_BOUND_MS);
            }
            System.out.printf("link down %d ms: exit %d after %d ms from link down%n%s%n", downMs,
                    o.result().exitCode(), endedMs,
                    o.out().lines().filter(l -> !l.contains("progress")).reduce("", (a, b) -> a + b + "\n"));
            return o;
        }
    }
}
