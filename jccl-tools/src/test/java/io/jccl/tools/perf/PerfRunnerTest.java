package io.jccl.tools.perf;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** End-to-end runs of the perf harness over an in-process fake cluster (threads, reference collectives). */
class PerfRunnerTest {
    record Run(int exitCode, String stdout, String stderr, FakeCluster cluster) {
        List<String> rows() {
            return stdout.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).toList();
        }
    }

    static Run run(int nRanks, int corruptRank, String... args) {
        return run(nRanks, corruptRank, -1, args);
    }

    /**
     * Runs perf over a fake cluster without the JIT warm-up, whoever calls it (PerfPlotTest does too): the warm-up
     * calls would be counted by the recording fakes (jitWarmupCalls has its own test), and with it each size of up to
     * 4 KiB makes up to 60 rounds of 10,000 calls through the fake's thread barriers, which took over 15 minutes on the
     * 2-core CI machine when only this class turned it off and surefire ran PerfPlotTest after it.
     */
    static Run run(int nRanks, int corruptRank, double minBw, String... args) {
        System.setProperty("JCCL_PERF_JIT_WARMUP", "0");
        try {
            return runAsSet(nRanks, corruptRank, minBw, args);
        } finally {
            System.clearProperty("JCCL_PERF_JIT_WARMUP");
        }
    }

    private static Run runAsSet(int nRanks, int corruptRank, double minBw, String... args) {
        PerfOptions o = PerfOptionsTest.parse(args);
        FakeCluster cluster = new FakeCluster(nRanks, TestElementAccess.INSTANCE);
        cluster.corruptRank = corruptRank;
        cluster.corruptIndex = 5;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new RankThreads(o, cluster.backends(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), minBw, TestElementAccess.INSTANCE).run();
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), cluster);
    }

    private static String[] cols(String row) {
        return row.trim().split("\\s+");
    }

    @Test
    void everyCollectiveChecksCleanOnOneTwoAndThreeRanks() {
        for (PerfCollective c : PerfCollective.values()) {
            for (int n = 1; n <= 3; n++) {
                Run r = run(n, -1, c.testName(), "-b", "8", "-e", "4K", "-f", "8", "-n", "2", "-w", "1", "-r", "all");
                assertThat(r.exitCode()).as("%s n=%d\n%s%s", c, n, r.stdout(), r.stderr()).isZero();
                assertThat(r.stdout()).contains("# Collective test starting: " + c.programName())
                        .contains("# Out of bounds values : 0 OK");
                int roots = c.rooted() ? n : 1;
                assertThat(r.rows()).as("%s n=%d", c, n).hasSize(4 * roots);
                for (String row : r.rows()) {
                    String[] f = cols(row);
                    assertThat(f).hasSize(13);
                    assertThat(f[8]).as("out-of-place #wrong in %s", row).isEqualTo("0");
                    assertThat(f[12]).as("in-place #wrong in %s", row).isEqualTo(c.checksInPlace() ? "0" : "N/A");
                    assertThat(f[3]).isEqualTo(c.usesOp() ? "sum" : "none");
                    assertThat(Integer.parseInt(f[4])).isEqualTo(c.rooted() ? Integer.parseInt(f[4]) : -1);
                }
            }
        }
    }

    @Test
    void everyTypeAndOperationChecksClean() {
        Run r = run(3, -1, "all_reduce", "-b", "64", "-e", "1K", "-f", "4", "-n", "1", "-w", "0", "-d", "all",
                "-o", "all");
        // the fake accessor has no fp8: those types fail (after printing a row's start), every other type is clean
        List<String> rows = r.rows().stream().filter(row -> cols(row).length == 13).toList();
        assertThat(rows).isNotEmpty();
        assertThat(r.stderr()).contains("fp8");
        for (String row : rows) {
            String[] f = cols(row);
            assertThat(f[8]).as(row).isEqualTo("0");
            assertThat(f[12]).as(row).isEqualTo("0");
        }
        // int8..bfloat16 (10 types) x 6 ops x 3 sizes ran before fp8
        assertThat(rows).hasSize(10 * 6 * 3);
        assertThat(r.exitCode()).isEqualTo(1);
    }

    @Test
    void reductionsOverManyRanksAndTypesStayExact() {
        for (String type : List.of("half", "bfloat16", "int8", "uint8", "int32", "uint64", "double")) {
            Run r = run(5, -1, "reduce_scatter", "-b", "1K", "-e", "1K", "-n", "1", "-w", "0", "-d", type, "-o", "all");
            assertThat(r.exitCode()).as(type + "\n" + r.stdout() + r.stderr()).isZero();
        }
    }

    @Test
    void aCorruptedElementIsCountedAndFailsTheRun() {
        Run r = run(2, 1, "all_reduce", "-b", "1K", "-e", "4K", "-f", "4", "-n", "1", "-w", "0");
        assertThat(r.exitCode()).isEqualTo(1);
        for (String row : r.rows()) {
            String[] f = cols(row);
            assertThat(f[8]).as(row).isEqualTo("1");
            assertThat(f[12]).as(row).isEqualTo("1");
        }
        assertThat(r.stdout()).contains("# Out of bounds values : 4 FAILED");
    }

    @Test
    void corruptionOnANonRootOfReduceIsNotAResult() {
        // rank 1 writes a wrong value into its receive buffer, which reduce does not define on non-roots
        Run r = run(2, 1, "reduce", "-b", "1K", "-e", "1K", "-n", "1", "-w", "0", "-r", "0");
        assertThat(r.exitCode()).isZero();
        Run root = run(2, 0, "reduce", "-b", "1K", "-e", "1K", "-n", "1", "-w", "0", "-r", "0");
        assertThat(root.exitCode()).isEqualTo(1);
    }

    @Test
    void headerAndRankLinesComeFromEveryRank() {
        Run r = run(3, -1, "broadcast", "-b", "8", "-e", "8", "-n", "1", "-w", "0", "-r", "2");
        List<String> lines = r.stdout().lines().toList();
        assertThat(lines.get(1)).isEqualTo("# nThread 3 nGpus 1 minBytes 8 maxBytes 8 step: 1048576(bytes) "
                + "warmup iters: 0 iters: 1 agg iters: 1 validation: 1 graph: 0 register: 0");
        assertThat(lines).filteredOn(l -> l.startsWith("#  Rank")).hasSize(3)
                .allMatch(l -> l.endsWith("[fake] fake device"));
        assertThat(r.rows()).singleElement().satisfies(row ->
                assertThat(row).startsWith("           8             2     float    none       2"));
        assertThat(lines).contains("# Avg bus bandwidth    : " + lines.stream()
                .filter(l -> l.startsWith("# Avg bus bandwidth")).findFirst().orElseThrow().substring(25));
    }

    @Test
    void aggregatedCallsRunInsideAGroupAndAreAllIssued() {
        // one size: warm-up 1 call, then per placement 2 iterations x 3 calls + 1 check call
        Run r = run(2, -1, "all_reduce", "-b", "64", "-e", "64", "-n", "2", "-w", "1", "-m", "3");
        assertThat(r.exitCode()).isZero();
        assertThat(r.cluster().launches.get() / 2).isEqualTo(1 + 2 * (2 * 3 + 1));
    }

    @Test
    void noCheckPrintsNotApplicableAndRepeatsCycles() {
        Run r = run(2, 1, "all_reduce", "-b", "64", "-e", "64", "-n", "1", "-w", "0", "-c", "0", "-N", "3");
        assertThat(r.exitCode()).isZero();
        assertThat(r.rows()).hasSize(3).allSatisfy(row -> {
            String[] f = cols(row);
            assertThat(f[8]).isEqualTo("N/A");
            assertThat(f[12]).isEqualTo("N/A");
        });
    }

    @Test
    void minimumBandwidthFromTheEnvironmentFailsSlowRuns() {
        Run r = run(2, -1, 1e9, "all_reduce", "-b", "64", "-e", "64", "-n", "1", "-w", "0");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stdout()).containsPattern("# Avg bus bandwidth    : \\S+ FAILED");
    }

    @Test
    void jsonAndCsvReports(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("r.json");
        Path csv = dir.resolve("sub/r.csv");
        Run r = run(2, -1, "all_gather", "-b", "1K", "-e", "4K", "-f", "2", "-n", "1", "-w", "0",
                "-J", json.toString(), "--csv", csv.toString());
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).startsWith("# Writing JSON output to " + json);
        JsonObject doc = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
        assertThat(doc.get("version").getAsInt()).isEqualTo(2);
        assertThat(doc.getAsJsonObject("config").get("collective").getAsString()).isEqualTo("all_gather");
        assertThat(doc.getAsJsonObject("config").get("step_factor").getAsLong()).isEqualTo(2);
        assertThat(doc.getAsJsonArray("devices")).hasSize(2);
        assertThat(doc.getAsJsonArray("devices").get(1).getAsJsonObject().get("rank").getAsInt()).isEqualTo(1);
        assertThat(doc.getAsJsonArray("results")).hasSize(3);
        JsonObject first = doc.getAsJsonArray("results").get(0).getAsJsonObject();
        assertThat(first.get("size").getAsLong()).isEqualTo(1024);
        assertThat(first.get("count").getAsLong()).isEqualTo(128);
        assertThat(first.get("redop").getAsString()).isEqualTo("none");
        assertThat(first.getAsJsonObject("out_of_place").get("nwrong").getAsLong()).isZero();
        assertThat(first.getAsJsonObject("in_place").get("bus_bw").getAsDouble()).isGreaterThanOrEqualTo(0);
        assertThat(doc.getAsJsonObject("out_of_bounds").get("okay").getAsBoolean()).isTrue();
        assertThat(doc.has("env")).as("the environment holds the job secret").isFalse();
        List<String> csvLines = Files.readAllLines(csv);
        assertThat(csvLines).hasSize(1 + 6);
        assertThat(csvLines.get(0)).isEqualTo(CsvReport.HEADER);
        assertThat(Arrays.asList(csvLines.get(1).split(","))).startsWith("all_gather", "1024", "128", "float", "none",
                "-1", "out-of-place").endsWith("0");
        assertThat(csvLines.get(2)).contains(",in-place,");
    }

    @Test
    void aFailingRankAbortsTheOthersAndFailsTheRun() {
        // root 5 does not exist in a 2-rank run: every rank refuses before any collective
        Run r = run(2, -1, "broadcast", "-b", "8", "-e", "8", "-r", "5");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stderr()).contains("-r 5 is not a rank");
    }

    @Test
    void jitWarmupIssuesTheConfiguredCallsOnce() {
        System.setProperty("JCCL_PERF_JIT_WARMUP", "7");
        try {
            assertThat(PerfRunner.jitWarmupCalls()).isEqualTo(7);
        } finally {
            System.clearProperty("JCCL_PERF_JIT_WARMUP");
        }
    }
}
