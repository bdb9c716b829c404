package io.jccl;

import io.jccl.internal.param.ParamSources;
import io.jccl.testing.ProcessRanks;
import io.jccl.testing.ScalableRankMain;
import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * NCCL's scalable init ({@link Communicator#initScalable}, {@link Communicator#initRanksScalable}): ranks split over
 * several bootstrap roots end in one communicator whose collectives are right, as thread ranks (in memory and over
 * bootstrap sockets) and as ranks of several processes whose roots run in different processes; ranks given different
 * lists of ids are told so; NCCL_COMM_ID forces one root.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ScalableInitTest {

    @ParameterizedTest(name = "{0} ranks, {1} roots, in-process bootstrap {2}, TLS {3}")
    @CsvSource({"7, 2, 1, off", "10, 4, 1, off", "10, 4, 0, off", "4, 4, 1, off", "2, 2, 0, off", "33, 4, 1, off",
        "6, 3, 0, on"})
    void threadRanksJoinThroughSeveralRoots(int n, int roots, int local, String tls) throws Exception {
        List<Communicator> comms;
        try (var s = ParamSources.use(ParamSources.of(Map.of(), Map.of("JCCL_BOOTSTRAP_LOCAL", "" + local,
                "JCCL_TLS", tls)))) {
            List<UniqueId> ids = IntStream.range(0, roots).mapToObj(i -> Jccl.uniqueId()).toList();
            comms = Communicator.initRanksScalable(ids, n, IntStream.range(0, n).toArray(), ThreadRanks.testConfig());
        }
        try {
            assertThat(comms).hasSize(n);
            checkCollectives(comms);
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void eachRankCanJoinFromItsOwnThreadWithInitScalable() throws Exception {
        int n = 5;
        List<UniqueId> ids = List.of(Jccl.uniqueId(), Jccl.uniqueId());
        List<CompletableFuture<Communicator>> fs = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            int rank = r;
            fs.add(CompletableFuture.supplyAsync(() -> Communicator.initScalable(ids, n, rank,
                    ThreadRanks.testConfig()), ScalableInitTest::ownThread));
        }
        List<Communicator> comms = new ArrayList<>();
        for (CompletableFuture<Communicator> f : fs) {
            comms.add(f.get(60, TimeUnit.SECONDS));
        }
        try {
            checkCollectives(comms);
        } finally {
            // ranks made one by one are closed together (a close agrees with the neighbours' closes)
            List<CompletableFuture<Void>> closes = new ArrayList<>();
            for (Communicator c : comms) {
                closes.add(CompletableFuture.runAsync(c::close, ScalableInitTest::ownThread));
            }
            CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        }
    }

    /** Three processes of three ranks each; the roots are created by the processes holding each group's first rank. */
    @ParameterizedTest(name = "9 ranks in 3 processes, {0} roots")
    @CsvSource({"2", "4"})
    void processRanksJoinThroughSeveralRoots(int roots) throws Exception {
        Path dir = Files.createTempDirectory("jccl-scalable-ids");
        try {
            ProcessRanks.Result r = ProcessRanks.run(3, ScalableRankMain.class, List.of("dir=" + dir,
                    "per-process=3", "roots=" + roots), Map.of("JCCL_COMM_ID", " ", "NCCL_DEBUG", "INFO",
                    "NCCL_DEBUG_SUBSYS", "BOOTSTRAP"), 150);
            String all = String.join("\n---\n", r.outputs());
            assertThat(r.allOk()).as("exit codes %s, output:\n%s", r.exitCodes(), all).isTrue();
            for (int p = 0; p < 3; p++) {
                assertThat(r.outputs().get(p)).contains("OK ranks " + 3 * p + "-" + (3 * p + 2) + " of 9");
            }
            for (int g = 0; g < roots; g++) {
                assertThat(all).contains("Bootstrap root " + g + " of " + roots + ": ranks ");
            }
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    /** Ranks 0-1 pass [A, B], ranks 2-3 pass [A, C]: root A hears from both kinds and fails them, saying why. */
    @Test
    void ranksGivenDifferentListsAreToldSo() {
        UniqueId a = Jccl.uniqueId();
        UniqueId b = Jccl.uniqueId();
        UniqueId c = Jccl.uniqueId();
        Config cfg = Config.defaults().withTimeout(Duration.ofSeconds(5));
        CompletableFuture<List<Communicator>> low = CompletableFuture.supplyAsync(() ->
                Communicator.initRanksScalable(List.of(a, b), 4, new int[] {0, 1}, cfg), ScalableInitTest::ownThread);
        CompletableFuture<List<Communicator>> high = CompletableFuture.supplyAsync(() ->
                Communicator.initRanksScalable(List.of(a, c), 4, new int[] {2, 3}, cfg), ScalableInitTest::ownThread);
        for (CompletableFuture<List<Communicator>> f : List.of(low, high)) {
            assertThatThrownBy(() -> f.get(60, TimeUnit.SECONDS)).cause().isInstanceOf(JcclException.class)
                    .hasMessageContaining("was given a different list of UniqueIds than rank")
                    .hasMessageContaining("every rank must pass the same ids in the same order");
        }
    }

    @Test
    void aRankGivenFewerIdsIsToldSo() {
        UniqueId a = Jccl.uniqueId();
        UniqueId b = Jccl.uniqueId();
        Config cfg = Config.defaults().withTimeout(Duration.ofSeconds(5));
        CompletableFuture<List<Communicator>> two = CompletableFuture.supplyAsync(() ->
                Communicator.initRanksScalable(List.of(a, b), 4, new int[] {0, 2, 3}, cfg),
                ScalableInitTest::ownThread);
        CompletableFuture<Communicator> one = CompletableFuture.supplyAsync(() ->
                Communicator.initScalable(List.of(a), 4, 1, cfg), ScalableInitTest::ownThread);
        assertThatThrownBy(() -> one.get(60, TimeUnit.SECONDS)).cause().isInstanceOf(JcclException.class)
                .hasMessageContaining("was given a different list of UniqueIds");
        assertThatThrownBy(() -> two.get(60, TimeUnit.SECONDS)).cause().isInstanceOf(JcclException.class);
    }

    @Test
    void ncclCommIdForcesOneRoot() throws Exception {
        UniqueId a = Jccl.uniqueId();
        UniqueId nobody = UniqueId.create(new InetSocketAddress("127.0.0.1", unusedPort()));
        List<Communicator> comms;
        try (var s = ParamSources.use(ParamSources.of(Map.of(), Map.of("NCCL_COMM_ID", "127.0.0.1:1")))) {
            comms = Communicator.initRanksScalable(List.of(a, nobody), 3, new int[] {0, 1, 2},
                    ThreadRanks.testConfig());
        }
        try {
            checkCollectives(comms);
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void badListsAreRefusedBeforeAnyRankStarts() {
        UniqueId a = Jccl.uniqueId();
        Config cfg = ThreadRanks.testConfig();
        assertThatThrownBy(() -> Communicator.initScalable(List.of(), 2, 0, cfg))
                .isInstanceOf(JcclException.class).hasMessageContaining("at least one UniqueId");
        assertThatThrownBy(() -> Communicator.initScalable(List.of(a, a), 2, 0, cfg))
                .isInstanceOf(JcclException.class).hasMessageContaining("twice");
        assertThatThrownBy(() -> Communicator.initScalable(List.of(a, Jccl.uniqueId(), Jccl.uniqueId()), 2, 0, cfg))
                .isInstanceOf(JcclException.class).hasMessageContaining("3 UniqueIds for 2 ranks");
        assertThat(((JcclException) catchThrowable(() -> Communicator.initScalable(List.of(), 2, 0, cfg))).result())
                .isEqualTo(Result.INVALID_ARGUMENT);
    }

    /** Runs {@code r} on a thread of its own (the common pool may have one thread: ranks must not wait in line). */
    private static void ownThread(Runnable r) {
        Thread.ofPlatform().daemon().start(r);
    }

    private static Throwable catchThrowable(Runnable r) {
        try {
            r.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    private static int unusedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** An allReduce, an allGather and a broadcast on every rank at once (one group), each checked. */
    private static void checkCollectives(List<Communicator> comms) {
        int n = comms.size();
        int count = 1001;
        float[][] d = new float[n][count];
        float[][] all = new float[n][n];
        float[][] bc = new float[n][3];
        for (int r = 0; r < n; r++) {
            assertThat(comms.get(r).rank()).isEqualTo(r);
            assertThat(comms.get(r).size()).isEqualTo(n);
            for (int i = 0; i < count; i++) {
                d[r][i] = r + i % 3;
            }
            if (r == n - 1) {
                bc[r] = new float[] {7, 8, 9};
            }
        }
        try (Group g = Jccl.group()) {
            for (int r = 0; r < n; r++) {
                comms.get(r).allReduce(d[r], RedOp.SUM);
                comms.get(r).allGather(new float[] {10 * r}, all[r]);
                comms.get(r).broadcast(bc[r], n - 1);
            }
        }
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < count; i++) {
                assertThat(d[r][i]).as("rank %d allReduce[%d]", r, i).isEqualTo(n * (n - 1) / 2f + n * (i % 3));
            }
            for (int p = 0; p < n; p++) {
                assertThat(all[r][p]).as("rank %d allGather[%d]", r, p).isEqualTo(10f * p);
            }
            assertThat(bc[r]).as("rank %d broadcast", r).containsExactly(7, 8, 9);
        }
    }
}
