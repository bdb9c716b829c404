package io.jccl.cuda;

import io.jccl.cuda.testing.GpuKillRankMain;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * kill -9 of a rank on another host, over and over: each run starts 2 or 3 GPU rank processes, each a host of its own
 * ({@code NCCL_HOSTID}), looping checked allReduces ({@link GpuKillRankMain}); once every rank has finished a checked
 * call it waits a random 0–1.5 s and kills one rank with SIGKILL. Every survivor must fail its call and exit within
 * 15 s, naming the killed rank; no element may ever come back wrong. {@code -Djccl.gpuKillRuns=N} sets the runs (1 by
 * default: in CI on the emulator), {@code -Djccl.gpuKillSeed=S} the seed.
 */
@Tag("gpu")
class GpuKillCampaignGpuTest {
    private static final long SURVIVOR_LIMIT_MS = 15_000;

    @Test
    void killingARankOnAnotherHostStopsTheOthersQuicklyAndNeverWrongly() throws Exception {
        int runs = Integer.getInteger("jccl.gpuKillRuns", 1);
        long seed = Long.getLong("jccl.gpuKillSeed", 20261205L);
        Random rnd = new Random(seed);
        List<String> problems = new ArrayList<>();
        List<Long> stopMs = new ArrayList<>();
        for (int run = 0; run < runs; run++) {
            int n = rnd.nextInt(3) == 0 ? 3 : 2;
            int victim = rnd.nextInt(n);
            int count = new int[] {1, 1000, 65_536, 1 << 20}[rnd.nextInt(4)];
            long delayMs = rnd.nextInt(1500);
            String what = String.format("run %d: kill -9 rank %d of %d, %d floats, %d ms after READY", run, victim, n,
                    count, delayMs);
            GpuProcessesGpuTest.Ranks job = GpuProcessesGpuTest.startRanks(n, GpuKillRankMain.class,
                    Map.of("NCCL_HOSTID", "jccl-kill-host-{rank}", "GPU_TEST_COUNT", Integer.toString(count)));
            long worst = -1;
            boolean hung = false;
            try {
                if (!awaitAll(job.logs(), "READY", 120_000)) {
                    problems.add(what + ": not every rank got READY\n" + logs(job));
                    continue;
                }
                Thread.sleep(delayMs);
                long killedAt = System.nanoTime();
                job.procs().get(victim).destroyForcibly();
                for (int p = 0; p < n; p++) {
                    if (p == victim) {
                        continue;
                    }
                    long left = TimeUnit.MILLISECONDS.toNanos(SURVIVOR_LIMIT_MS) - (System.nanoTime() - killedAt);
                    if (!job.procs().get(p).waitFor(Math.max(1, left), TimeUnit.NANOSECONDS)) {
                        hung = true;
                    } else {
                        worst = Math.max(worst, (System.nanoTime() - killedAt) / 1_000_000);
                    }
                }
            } finally {
                job.procs().forEach(Process::destroyForcibly);
                for (Process p : job.procs()) {
                    p.waitFor(10, TimeUnit.SECONDS);
                }
            }
            String out = logs(job);
            boolean bad = false;
            if (hung) {
                problems.add(what + ": a survivor still ran " + SURVIVOR_LIMIT_MS + " ms after the kill\n" + out);
                bad = true;
            }
            if (out.contains("WRONG")) {
                problems.add(what + ": WRONG RESULT\n" + out);
                bad = true;
            }
            for (int p = 0; p < n && !hung; p++) {
                String mine = Files.readString(job.logs().get(p));
                if (p == victim) {
                    continue;
                }
                int at = mine.indexOf("FAILED rank");
                String failure = at < 0 ? "" : mine.substring(at, mine.indexOf('\n', at));
                if (!failure.contains("rank " + victim) || job.procs().get(p).exitValue() != 0) {
                    problems.add(what + ": rank " + p + " exit " + job.procs().get(p).exitValue()
                            + " does not name rank " + victim + ": " + failure + "\n" + out);
                    bad = true;
                }
            }
            for (Path l : job.logs()) {
                Files.deleteIfExists(l);
            }
            if (worst >= 0) {
                stopMs.add(worst);
            }
            System.out.println(what + ": survivors out after " + worst + " ms" + (bad ? ": PROBLEM" : ": ok"));
        }
        List<Long> sorted = stopMs.stream().sorted().toList();
        System.out.printf("GPU kill campaign across hosts (seed %d): %d runs, %d problems; survivors out after "
                + "median %s ms, max %s ms%n", seed, runs, problems.size(),
                sorted.isEmpty() ? "-" : sorted.get(sorted.size() / 2),
                sorted.isEmpty() ? "-" : sorted.get(sorted.size() - 1));
        assertThat(problems).isEmpty();
    }

    private static boolean awaitAll(List<Path> logs, String marker, long limitMs) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limitMs);
        while (System.nanoTime() < deadline) {
            boolean all = true;
            for (Path l : logs) {
                all &= Files.readString(l).contains(marker);
            }
            if (all) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    private static String logs(GpuProcessesGpuTest.Ranks job) throws Exception {
        StringBuilder b = new StringBuilder();
        for (int p = 0; p < job.logs().size(); p++) {
            b.append("  --- rank ").append(p).append('\n').append(Files.readString(job.logs().get(p)).indent(4));
        }
        return b.toString();
    }
}
