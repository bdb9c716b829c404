package io.jccl;

import io.jccl.testing.FaultRankMain;
import io.jccl.testing.ProcessRanks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ranks in separate JVMs run checked allReduces; one is killed with SIGKILL (or stopped with SIGSTOP) mid-run. The
 * survivors must fail within 15 s with an error naming it (never hang, never return a wrong result), agree on who
 * is lost, shrink, and finish checked allReduces on the new communicator. Over shared memory and over TCP.
 */
class FaultInjectionTest {
    private static final Pattern FAILED_AT = Pattern.compile("FAILED rank (\\d+) at (\\d+) ");

    @ParameterizedTest(name = "kill -9 rank {1} of {0} over {2}")
    @CsvSource({"2, 1, shm", "4, 2, tcp", "4, 1, shm", "8, 5, shm", "8, 3, tcp", "2, 0, tcp"})
    void survivorsOfAKilledRankFailNamingItThenShrink(int n, int victim, String transport) throws Exception {
        run(n, victim, transport, "KILL");
    }

    @ParameterizedTest(name = "kill -STOP rank {1} of {0} over {2}")
    @CsvSource({"3, 1, shm", "4, 3, tcp"})
    void survivorsOfAStoppedRankTimeOutNamingItThenShrink(int n, int victim, String transport) throws Exception {
        run(n, victim, transport, "STOP");
    }

    private static void run(int n, int victim, String transport, String signal) throws Exception {
        Map<String, String> env = new java.util.HashMap<>(Map.of("JCCL_HEARTBEAT_TIMEOUT_MS", "3000"));
        if (transport.equals("tcp")) {
            env.put("NCCL_SHM_DISABLE", "1");
        }
        ProcessRanks.Job job = ProcessRanks.start(n, FaultRankMain.class,
                List.of("count=" + (n >= 8 ? 20_000 : 200_000), "shrink", "timeout=60"), env);
        ProcessRanks.Result r;
        long signalledAt;
        try {
            assertThat(job.awaitOutput("READY", 60_000)).as("every rank started its loop").isTrue();
            Thread.sleep(200);
            signalledAt = System.currentTimeMillis();
            if (signal.equals("KILL")) {
                job.process(victim).destroyForcibly();
            } else {
                assertThat(ProcessRanks.signal(job.process(victim).pid(), "STOP")).isTrue();
            }
            // survivors exit by themselves; the stopped rank is killed by await() once the others are done
            for (int p = 0; p < n; p++) {
                if (p != victim) {
                    job.process(p).waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
                }
            }
        } finally {
            job.process(victim).destroyForcibly();
            ProcessRanks.signal(job.process(victim).pid(), "CONT");
            r = job.await(30);
        }
        StringBuilder all = new StringBuilder();
        for (int p = 0; p < n; p++) {
            all.append("--- rank ").append(p).append(" exit ").append(r.exitCodes().get(p)).append('\n')
                    .append(r.outputs().get(p));
        }
        String logs = all.toString();
        assertThat(logs).as("no wrong result, ever").doesNotContain("WRONG");
        for (int p = 0; p < n; p++) {
            if (p == victim) {
                continue;
            }
            String out = r.outputs().get(p);
            assertThat(r.exitCodes().get(p)).as("rank %d exit code\n%s", p, logs).isZero();
            Matcher m = FAILED_AT.matcher(out);
            assertThat(m.find()).as("rank %d reports its failure\n%s", p, logs).isTrue();
            long latencyMs = Long.parseLong(m.group(2)) - signalledAt;
            assertThat(latencyMs).as("rank %d failed %d ms after the %s\n%s", p, latencyMs, signal, logs)
                    .isLessThan(15_000);
            String failure = out.substring(m.start(), out.indexOf('\n', m.start()));
            assertThat(failure).as("rank %d names the lost rank", p).contains("rank " + victim + " (pid");
            if (signal.equals("STOP")) {
                assertThat(failure).contains("TIMEOUT").contains("heartbeat");
            } else {
                assertThat(failure).contains("REMOTE_ERROR").containsAnyOf("killed or crashed", "is gone");
            }
            assertThat(failure).containsPattern("seq \\d+");
            assertThat(out).contains("LOST [" + victim + "]").contains("SHRINK OK rank").contains("of " + (n - 1));
            System.out.printf("%s rank %d of %d over %s: rank %d failed after %d ms: %s%n", signal, victim, n, transport,
                    p, latencyMs, failure);
        }
    }
}
