package io.jccl.spark;

import io.jccl.Communicator;
import io.jccl.RedOp;
import io.jccl.launch.Placement;
import io.jccl.spark.examples.LinearRegressionExample;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * JCCL in barrier stages of a Spark {@code local-cluster[2,2,1024]}: a master, two workers and two executor JVMs of
 * two task slots each, started from the test's class path (Maven Central's Spark jars, no Spark distribution), so
 * the four ranks live in two processes and rank 0's bootstrap root in an executor. One cluster serves every test;
 * the failure tests run last (the second kills an executor).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(120)
class SparkClusterTest {
    static final int TASKS = 4;
    private static JavaSparkContext sc;

    /** What one rank saw (the placement's parts: Placement is not Serializable). */
    record RankReport(int rank, int size, boolean sumsRight, long pid, int placedRank, int placedSize,
                      int placedLocalRank, int placedLocalSize, String launcher, int commLocalRank,
                      int commLocalSize) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    @BeforeAll
    static void startCluster() throws InterruptedException {
        sc = new JavaSparkContext(clusterConf("local-cluster[2,2,1024]"));
        long deadline = System.nanoTime() + 60_000_000_000L;
        // the driver is one of the executors the tracker lists
        while (sc.statusTracker().getExecutorInfos().length < 3 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(sc.statusTracker().getExecutorInfos()).as("executors registered").hasSizeGreaterThanOrEqualTo(3);
    }

    /**
     * A local cluster's conf: executors get the test's class path (Spark's launcher would look for a distribution's
     * jars, which SPARK_TESTING lets it go without, and for the Scala version of a source tree, given here).
     */
    static SparkConf clusterConf(String master) {
        return new SparkConf().setMaster(master).setAppName("jccl-spark-test")
                .set("spark.ui.enabled", "false")
                .set("spark.executor.extraClassPath", System.getProperty("java.class.path"))
                .set("spark.executorEnv.SPARK_SCALA_VERSION", "2.13")
                .set("spark.executorEnv.SPARK_TESTING", "1")
                // a barrier stage waits for enough free slots; check every second instead of every 15 s
                .set("spark.scheduler.barrier.maxConcurrentTasksCheck.interval", "1s");
    }

    @AfterAll
    static void stopCluster() {
        if (sc != null) {
            sc.close();
        }
    }

    static JavaRDD<Integer> partitions() {
        return sc.parallelize(IntStream.range(0, TASKS).boxed().toList(), TASKS);
    }

    @Test
    @Order(1)
    void allReduceAcrossFourBarrierTasksInTwoExecutors() {
        int n = 100_000;
        List<RankReport> reports = new ArrayList<>(SparkJccl.barrier(partitions(), (ctx, it) -> {
            Placement placement = SparkJccl.placement(ctx);
            try (Communicator comm = SparkJccl.communicator(ctx)) {
                double[] data = new double[n];
                for (int i = 0; i < n; i++) {
                    data[i] = comm.rank() * 1000.0 + i;
                }
                comm.allReduce(data, RedOp.SUM);
                boolean right = true;
                for (int i = 0; i < n; i++) {
                    right &= data[i] == 1000.0 * (TASKS * (TASKS - 1) / 2) + (double) TASKS * i;
                }
                return List.of(new RankReport(comm.rank(), comm.size(), right, ProcessHandle.current().pid(),
                        placement.rank(), placement.size(), placement.localRank(), placement.localSize(),
                        placement.launcher(), comm.localRank(), comm.localSize())).iterator();
            }
        }).collect());
        reports.sort(Comparator.comparingInt(RankReport::rank));

        assertThat(reports).extracting(RankReport::rank).containsExactly(0, 1, 2, 3);
        assertThat(reports).allSatisfy(r -> {
            assertThat(r.size()).isEqualTo(TASKS);
            assertThat(r.sumsRight()).as("rank %d's sums", r.rank()).isTrue();
            assertThat(r.placedRank()).isEqualTo(r.rank());
            assertThat(r.placedSize()).isEqualTo(TASKS);
            assertThat(r.launcher()).isEqualTo("spark");
            // one host: Spark's addresses and JCCL's host hashes agree on the local ranks
            assertThat(r.placedLocalSize()).isEqualTo(TASKS);
            assertThat(r.placedLocalRank()).isEqualTo(r.commLocalRank());
            assertThat(r.commLocalSize()).isEqualTo(TASKS);
        });
        assertThat(reports.stream().map(RankReport::pid).distinct()).as("two executor JVMs").hasSize(2)
                .doesNotContain(ProcessHandle.current().pid());
    }

    @Test
    @Order(2)
    void fromEnvironmentFindsTheBarrierStage() {
        List<Double> sums = SparkJccl.barrier(partitions(), (ctx, it) -> {
            try (Communicator comm = Communicator.fromEnvironment()) {
                double[] one = {comm.rank() + 1};
                comm.allReduce(one, RedOp.SUM);
                return List.of(one[0]).iterator();
            }
        }).collect();
        assertThat(sums).containsOnly(10.0).hasSize(TASKS);
    }

    @Test
    @Order(3)
    void trainingGivesEveryPartitionTheSingleProcessWeights() {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        LinearRegressionExample.Outcome outcome = LinearRegressionExample.run(sc, TASKS, 100,
                new PrintStream(text, true, StandardCharsets.UTF_8));

        assertThat(outcome.perPartition()).extracting(LinearRegressionExample.PartitionWeights::partition)
                .containsExactly(0, 1, 2, 3);
        double[] first = outcome.perPartition().getFirst().weights();
        assertThat(outcome.perPartition()).allSatisfy(p -> assertThat(p.weights()).containsExactly(first));
        assertThat(first).containsExactly(outcome.reference(), org.assertj.core.data.Offset.offset(1e-9));
        assertThat(outcome.ok()).isTrue();
        assertThat(text.toString(StandardCharsets.UTF_8)).contains("identical on all 4 partitions: true").endsWith(
                "OK" + System.lineSeparator());
    }

    @Test
    @Order(4)
    void aTaskThatThrowsAfterInitFailsTheStageNamingItsRank() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> SparkJccl.mapPartitions(partitions(), (comm, it) -> {
            double[] x = {1};
            comm.allReduce(x, RedOp.SUM);
            if (comm.rank() == 2) {
                throw new IllegalStateException("rank 2 gives up");
            }
            comm.allReduce(x, RedOp.SUM);          // the others wait here for rank 2, until it aborts
            return List.of(x[0]).iterator();
        }).collect()).isInstanceOf(SparkException.class)
                .hasMessageContaining("barrier")
                .hasMessageContaining("rank 2");
        assertThat((System.nanoTime() - start) / 1e9).as("seconds to fail").isLessThan(30);
    }

    @Test
    @Order(5)
    void aTaskThatThrowsWithItsCommunicatorOpenReleasesItsPeers() {
        assertThatThrownBy(() -> SparkJccl.barrier(partitions(), (ctx, it) -> {
            Communicator comm = SparkJccl.communicator(ctx);       // by hand, never closed on the way out
            double[] x = {1};
            comm.allReduce(x, RedOp.SUM);
            if (comm.rank() == 1) {
                throw new IllegalStateException("task of rank 1 gives up");
            }
            comm.allReduce(x, RedOp.SUM);          // released when rank 1's task fails and its communicator aborts
            comm.close();
            return List.of(x[0]).iterator();
        }).collect()).isInstanceOf(SparkException.class).hasMessageContaining("rank 1");
        // the peers' task slots are free again well before JCCL's 120 s timeout: the next stage gets all four
        long start = System.nanoTime();
        assertThat(SparkJccl.mapPartitions(partitions(), (comm, it) -> List.of(comm.rank()).iterator()).collect())
                .containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat((System.nanoTime() - start) / 1e9).as("seconds until the next stage ran").isLessThan(30);
    }

    @Test
    @Order(6)
    void aTaskWhoseExecutorExitsAfterInitFailsTheStageNamingALostRank(@TempDir Path dir) throws IOException {
        String where = dir.toString();
        long start = System.nanoTime();
        Throwable thrown = catchThrowable(() -> SparkJccl.mapPartitions(partitions(), (comm, it) -> {
            Files.writeString(Path.of(where, "rank-" + comm.rank()), Long.toString(ProcessHandle.current().pid()));
            double[] x = {1};
            comm.allReduce(x, RedOp.SUM);          // every rank has written its pid
            if (comm.rank() == 2) {
                Runtime.getRuntime().halt(3);       // the executor goes, with every rank it holds
            }
            comm.allReduce(x, RedOp.SUM);
            return List.of(x[0]).iterator();
        }).collect());
        double seconds = (System.nanoTime() - start) / 1e9;

        String deadPid = Files.readString(dir.resolve("rank-2"));
        List<String> lost = new ArrayList<>();
        for (int r = 0; r < TASKS; r++) {
            if (Files.readString(dir.resolve("rank-" + r)).equals(deadPid)) {
                lost.add(Integer.toString(r));
            }
        }
        String ranks = String.join("|", lost);
        // whichever failure Spark hears of first: the lost executor's task (stage, partition), or a survivor's JCCL
        // error naming the rank that went away
        assertThat(thrown).isInstanceOf(SparkException.class).hasMessageContaining("barrier")
                .hasMessageMatching("(?s).*(ResultTask\\(\\d+, (" + ranks + ")\\)|rank (" + ranks
                        + ") \\(pid " + deadPid + ").*");
        assertThat(seconds).as("seconds to fail").isLessThan(30);
    }
}
