package io.jccl;

import io.jccl.testing.FaultRankMain;
import io.jccl.testing.ProcessRanks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A long fault campaign, off by default: {@code mvn -pl jccl-core test -Dtest=FaultCampaignTest -Djccl.faultRuns=60
 * [-Djccl.faultSeed=S]}. Each run starts 2, 4 or 8 rank processes (shared memory or TCP) doing checked allReduces of
 * a random size, then kills one with SIGKILL (or stops it with SIGSTOP) at a random moment, sometimes during init.
 * It counts hangs (a survivor still running 15 s after the fault, or after its JCCL timeout when the fault hit
 * init), wrong results (any checked element wrong, ever), failures that do not name the lost rank, and survivors
 * that could not shrink and finish checked allReduces afterwards.
 */
@EnabledIfSystemProperty(named = "jccl.faultRuns", matches = "\\d+")
class FaultCampaignTest {
    @Test
    void campaign() throws Exception {
        int runs = Integer.parseInt(System.getProperty("jccl.faultRuns"));
        long seed = Long.parseLong(System.getProperty("jccl.faultSeed", "20261130"));
        Random rnd = new Random(seed);
        int hangs = 0;
        int wrong = 0;
        int unnamed = 0;
        int noShrink = 0;
        int initFaults = 0;
        List<String> problems = new ArrayList<>();
        for (int run = 0; run < runs; run++) {
            int n = new int[] {2, 4, 4, 8}[rnd.nextInt(4)];
            boolean tcp = rnd.nextBoolean();
            boolean stop = rnd.nextInt(5) == 0;
            boolean duringInit = !stop && rnd.nextInt(10) == 0;
            int victim = rnd.nextInt(n);
            int count = new int[] {1, 1000, 65_536, 1_000_000}[rnd.nextInt(4)];
            long delayMs = rnd.nextInt(1500);
            Map<String, String> env = new HashMap<>(Map.of("JCCL_HEARTBEAT_TIMEOUT_MS", "3000"));
            if (tcp) {
                env.put("NCCL_SHM_DISABLE", "1");
            }
            String what = String.format("run %d: %s rank %d of %d over %s, %d floats, %s %d ms", run,
                    stop ? "STOP" : "KILL", victim, n, tcp ? "tcp" : "shm", count, duringInit ? "during init, after"
                            : "after READY +", delayMs);
            int timeoutS = 20;
            ProcessRanks.Job job = ProcessRanks.start(n, FaultRankMain.class,
                    List.of("count=" + count, "shrink", "timeout=" + timeoutS), env);
            long faultAt;
            boolean hung = false;
            try {
                if (duringInit) {
                    Thread.sleep(delayMs);
                    initFaults++;
                } else if (!job.awaitOutput("READY", 60_000)) {
                    problems.add(what + ": never got READY");
                    continue;
                } else {
                    Thread.sleep(delayMs);
                }
                faultAt = System.nanoTime();
                if (stop) {
                    ProcessRanks.signal(job.process(victim).pid(), "STOP");
                } else {
                    job.process(victim).destroyForcibly();
                }
                long limitNs = TimeUnit.SECONDS.toNanos(duringInit ? timeoutS + 15 : 15 + 10);   // + time to shrink
                for (int p = 0; p < n; p++) {
                    if (p != victim) {
                        long left = limitNs - (System.nanoTime() - faultAt);
                        if (!job.process(p).waitFor(Math.max(1, left), TimeUnit.NANOSECONDS)) {
                            hung = true;
                        }
                    }
                }
            } finally {
                job.process(victim).destroyForcibly();
                ProcessRanks.signal(job.process(victim).pid(), "CONT");
            }
            ProcessRanks.Result r = job.await(30);
            StringBuilder logs = new StringBuilder();
            for (int p = 0; p < n; p++) {
                logs.append("  --- rank ").append(p).append(" exit ").append(r.exitCodes().get(p)).append('\n')
                        .append(r.outputs().get(p).indent(4));
            }
            boolean bad = false;
            if (hung) {
                hangs++;
                bad = true;
                problems.add(what + ": HANG\n" + logs);
            }
            if (logs.indexOf("WRONG") >= 0) {
                wrong++;
                bad = true;
                problems.add(what + ": WRONG RESULT\n" + logs);
            }
            for (int p = 0; p < n && !hung; p++) {
                String out = r.outputs().get(p);
                if (p == victim || out.contains("DONE")) {
                    continue;
                }
                int at = out.indexOf("FAILED rank");
                String failure = at < 0 ? "" : out.substring(at, out.indexOf('\n', at));
                if (!duringInit && !failure.contains("rank " + victim + " ")) {
                    unnamed++;
                    bad = true;
                    problems.add(what + ": rank " + p + " does not name rank " + victim + ": " + failure);
                }
                if (at >= 0 && !out.contains("SHRINK OK")) {
                    noShrink++;
                    bad = true;
                    problems.add(what + ": rank " + p + " could not shrink\n" + logs);
                }
            }
            System.out.println(what + (bad ? ": PROBLEM" : ": ok"));
        }
        System.out.printf("fault campaign (seed %d): %d runs (%d with the fault during init), %d hangs, "
                + "%d wrong results, %d failures not naming the lost rank, %d survivors that could not shrink%n", seed,
                runs, initFaults, hangs, wrong, unnamed, noShrink);
        problems.forEach(System.out::println);
        assertThat(hangs).as("hangs").isZero();
        assertThat(wrong).as("wrong results").isZero();
        assertThat(problems).isEmpty();
    }
}
