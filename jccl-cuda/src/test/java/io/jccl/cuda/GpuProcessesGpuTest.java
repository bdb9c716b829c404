package io.jccl.cuda;

import io.jccl.cuda.testing.GpuRankMain;
import io.jccl.cuda.testing.GpuFaultRankMain;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One process per GPU: two JVMs started as a launcher would (RANK, WORLD_SIZE, LOCAL_RANK, JCCL_COMM_ID), each
 * joining with {@link GpuCommunicator#fromEnvironment} and exchanging CUDA IPC handles (which cannot be opened in the
 * exporting process, hence processes). Each child checks every collective itself ({@link GpuRankMain}); in the
 * fault tests rank 1 never makes rank 0's call, and rank 0's kernel times out, or with JCCL_CHECK_CALLS=1 the ranks
 * call with different counts and both are refused ({@link GpuFaultRankMain}). The fault tests also run with both
 * processes on one GPU ({@code -Djccl.cuda.shareDevices=true}): none needs the two ranks' kernels to run together.
 */
@Tag("gpu")
class GpuProcessesGpuTest {
    @Test
    void twoProcessesRunEveryCollective() throws Exception {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 2, "needs 2 GPUs (its kernels run together)");
        List<String> outs = runRanks(GpuRankMain.class, Map.of(), 240);
        assertThat(outs.get(0)).contains("rank 0 done, 0 failures");
        assertThat(outs.get(1)).contains("rank 1 done, 0 failures");
    }

    /**
     * Two processes of two GPUs each (NCCL's several devices per process): every collective over 4 ranks, the ranks
     * of one process by address, the others' through IPC; each process drives and closes its ranks from one thread
     * (each call in a GPU group over its ranks). With JCCL_CHECK_CALLS=1 too, where every call is compared over the
     * host communicators at the group's end (before, the first rank's comparison waited for the second's call).
     */
    @ParameterizedTest(name = "JCCL_CHECK_CALLS={0}")
    @ValueSource(strings = {"0", "1"})
    void twoProcessesOfTwoGpusEachRunEveryCollective(String checkCalls) throws Exception {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 4,
                "needs 4 GPUs (the processes' kernels run together; the CPU emulator has them)");
        List<String> outs = runRanks(GpuRankMain.class, Map.of("GPU_TEST_PER_PROCESS", "2", "JCCL_TIMEOUT_MS", "20000",
                "JCCL_CHECK_CALLS", checkCalls), 300);
        assertThat(outs.get(0)).contains("ranks 0-1 done, 0 failures", "closed 2 in");
        assertThat(outs.get(1)).contains("ranks 2-3 done, 0 failures", "closed 2 in");
    }

    @Test
    void initRanksNeedsADevicePerRankBeforeJoining() {
        assumeTrue(CudaDevice.isAvailable(), "no GPU");
        assertThatThrownBy(() -> GpuCommunicator.initRanks(io.jccl.Jccl.uniqueId(), 4, new int[] {0, 1},
                List.of(CudaDevice.get(0)), io.jccl.Config.defaults()))
                .isInstanceOf(io.jccl.JcclException.class).hasMessageContaining("2 ranks, 1 devices");
    }

    @Test
    void fourProcessesRunEveryCollective() throws Exception {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 4,
                "needs 4 GPUs (the processes' kernels run together; the CPU emulator has them)");
        List<String> outs = runRanks(4, GpuRankMain.class, Map.of("JCCL_TIMEOUT_MS", "20000"), 300);
        for (int r = 0; r < 4; r++) {
            assertThat(outs.get(r)).contains("rank " + r + " done, 0 failures");
        }
    }

    /** Processes split their communicator (keys reversed): the new one works through IPC, and so does the parent. */
    @Test
    void processesSplitIntoANewCommunicator() throws Exception {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 2, "needs 2 GPUs (its kernels run together)");
        List<String> outs = runRanks(GpuFaultRankMain.class, Map.of("GPU_TEST_FAULT", "split"), 120);
        assertThat(outs.get(0)).contains("rank 0 split rank 1 sum 3.0");
        assertThat(outs.get(1)).contains("rank 1 split rank 0 sum 3.0");
    }

    /** Rank 1 never makes the call: rank 0's kernel gives up after JCCL_TIMEOUT_MS and names rank 1. */
    @Test
    void aKernelWhosePeerProcessNeverCallsTimesOut() throws Exception {
        List<String> outs = fault("timeout", 2000);
        assertThat(outs.get(0)).contains("rank 0 TIMEOUT", "this rank's AllReduce kernel", "for rank 1",
                "limit 2000 ms");
        // the processes share the abort area: rank 1 reports rank 0's timeout
        assertThat(outs.get(1)).contains("rank 1 asyncError TIMEOUT", "rank 0's AllReduce kernel", "for rank 1");
    }

    /** Without JCCL_CHECK_CALLS the ranks compare calls through shared memory: both see the mismatch, neither hangs. */
    @Test
    void aDifferentCountIsRefusedThroughSharedMemoryAndStopsBothRanks() throws Exception {
        List<String> outs = fault("mismatch-shared", 60000);
        for (int r = 0; r < 2; r++) {
            assertThat(outs.get(r)).contains("rank " + r + " INVALID_USAGE", "collective call 1 of this rank",
                    "AllReduce(count 1000", "AllReduce(count 2000", "rank " + r + " next call INVALID_USAGE");
        }
    }

    /**
     * A process that dies stops its peer's kernel as soon as the peer's host communicator finds it gone; the survivor
     * shrinks the communicator and goes on.
     */
    @Test
    void aProcessThatDiesStopsThePeersKernel() throws Exception {
        List<String> outs = fault("crash", 60000);
        assertThat(outs.get(1)).contains("rank 1 halts");
        assertThat(outs.get(0)).contains("rank 0/2", "its host communicator failed", "rank 1");
        assertThat(stoppedAfterMs(outs.get(0))).as("stopped by the lost peer, not by the 60 s limit").isLessThan(45_000);
        assertThat(outs.get(0)).as("the survivor shrinks and goes on").contains("rank 0 shrunk to 1 rank(s), sum 7.0");
    }

    /** abort() in one process stops the other's kernel at once, and it reports who aborted. */
    @Test
    void anAbortInOneProcessStopsThePeersKernel() throws Exception {
        List<String> outs = fault("abort", 60000);
        assertThat(outs.get(1)).contains("rank 1 aborted");
        assertThat(outs.get(0)).contains("rank 0 ABORTED", "rank 1/2", "called abort()");
        assertThat(stoppedAfterMs(outs.get(0))).as("stopped by the abort, not by the 60 s limit").isLessThan(30_000);
    }

    /** Runs {@link GpuFaultRankMain}'s {@code scenario} on two ranks with a GPU wait limit of {@code timeoutMs}. */
    private static List<String> fault(String scenario, long timeoutMs) throws Exception {
        return runRanks(GpuFaultRankMain.class, Map.of("GPU_TEST_FAULT", scenario, "JCCL_TIMEOUT_MS",
                Long.toString(timeoutMs)), 120);
    }

    /** The time rank 0's {@code rank 0 stopped after N ms} line gives. */
    private static long stoppedAfterMs(String out) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("rank 0 stopped after (\\d+) ms").matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** JCCL_CHECK_CALLS=1: calls of different counts are refused on both ranks, and the next matching one works. */
    @Test
    void withCheckCallsADifferentCountIsRefusedOnEveryRank() throws Exception {
        List<String> outs = runRanks(GpuFaultRankMain.class, Map.of("GPU_TEST_FAULT", "mismatch",
                "JCCL_CHECK_CALLS", "1"), 120);
        assertThat(outs.get(0)).contains("rank 0 INVALID_USAGE", "collective call 1 of this rank, AllReduce(count 1000",
                "rank 1's call 1, AllReduce(count 2000");
        assertThat(outs.get(1)).contains("rank 1 INVALID_USAGE", "collective call 1 of this rank, AllReduce(count 2000",
                "rank 0's call 1, AllReduce(count 1000");
    }

    /**
     * JCCL_CHECK_CALLS=1 with two ranks per process driven from one thread in GPU groups (NCCL's several devices per
     * thread): each group's calls are compared when it ends, so none waits for a rank the same thread has yet to
     * call. A different count or a different number of calls is refused on all 4 ranks, and nothing of it runs.
     */
    @Test
    void withCheckCallsOneThreadDrivesTwoRanksInGroups() throws Exception {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 4,
                "needs 4 GPUs (the processes' kernels run together; the CPU emulator has them)");
        List<String> outs = runRanks(io.jccl.cuda.testing.GpuGroupCheckRankMain.class, Map.of("JCCL_CHECK_CALLS", "1",
                "JCCL_TIMEOUT_MS", "20000"), 120);
        for (int p = 0; p < 2; p++) {
            String out = outs.get(p);
            assertThat(out).contains("round match sum 10.0", "round again sum 40.0",
                    "round count INVALID_USAGE", "AllReduce(count 1000 float sum)", "rank 3's call 2, AllReduce(count 2000",
                    "round calls INVALID_USAGE", "made 1 collective call(s) in a GPU group (calls 2 on), rank 3 made 2",
                    "No rank launched any collective of the");
            assertThat(out).contains("rank " + 2 * p + " after all rounds 40.0 40.0 untouched " + (2 * p + 1),
                    "rank " + (2 * p + 1) + " after all rounds 40.0 40.0 untouched " + (2 * p + 2));
        }
    }

    /** With JCCL_CHECK_CALLS=1 a GPU call inside a host group is refused (its comparison would read old data). */
    @Test
    void withCheckCallsAGpuCallInsideAHostGroupIsRefused() throws Exception {
        List<String> outs = runRanks(GpuFaultRankMain.class, Map.of("GPU_TEST_FAULT", "hostgroup",
                "JCCL_CHECK_CALLS", "1"), 120);
        for (int r = 0; r < 2; r++) {
            assertThat(outs.get(r)).contains("rank " + r + " INVALID_USAGE", "called inside a host group",
                    "rank " + r + " then ran");
        }
    }

    /**
     * Processes that cannot share the control file (each has its own JCCL_SHM_DIR, as separate containers have their
     * own /dev/shm) fall back to an abort area each and say so: the waiting rank still times out, alone.
     */
    @Test
    void processesThatCannotShareMemoryFallBackToAnAreaEach() throws Exception {
        Path base = Files.createTempDirectory("jccl-shm-");
        try {
            Files.createDirectories(base.resolve("r0"));
            Files.createDirectories(base.resolve("r1"));
            List<String> outs = runRanks(GpuFaultRankMain.class, Map.of("GPU_TEST_FAULT", "timeout",
                    "JCCL_TIMEOUT_MS", "2000", "JCCL_SHM_DIR", base + "/r{rank}", "NCCL_SHM_DISABLE", "1",
                    "NCCL_DEBUG", "INFO", "NCCL_DEBUG_SUBSYS", "INIT"), 120);
            assertThat(outs.get(0)).contains("rank 0 TIMEOUT", "this rank's AllReduce kernel", "for rank 1",
                    "GPU ranks share no control memory");
            assertThat(outs.get(1)).contains("rank 1 asyncError", "GPU ranks share no control memory")
                    .doesNotContain("rank 1 asyncError TIMEOUT");
        } finally {
            try (var files = Files.walk(base)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * Starts ranks 0 and 1 of {@code main} as a launcher would, waits at most {@code limitSec}, checks that both
     * exited with 0 and returns their output.
     */
    private static List<String> runRanks(Class<?> main, Map<String, String> extraEnv, int limitSec)
            throws Exception {
        return runRanks(2, main, extraEnv, limitSec);
    }

    /** As {@link #runRanks(Class, Map, int)} with {@code nProcs} processes. */
    static List<String> runRanks(int nProcs, Class<?> main, Map<String, String> extraEnv, int limitSec)
            throws Exception {
        Ranks ranks = startRanks(nProcs, main, extraEnv);
        List<String> outs = new ArrayList<>();
        List<Integer> codes = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(limitSec);
        for (Process p : ranks.procs()) {
            boolean done = p.waitFor(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (!done) {
                ranks.procs().forEach(Process::destroyForcibly);
            }
            codes.add(done ? p.exitValue() : -1);
        }
        for (Path l : ranks.logs()) {
            outs.add(Files.readString(l));
            Files.deleteIfExists(l);
        }
        assertThat(codes).as(String.join("\n---\n", outs)).containsOnly(0);
        return outs;
    }

    /** The processes of a job started by {@link #startRanks} and the files their output goes to. */
    record Ranks(List<Process> procs, List<Path> logs) {
    }

    /** Starts {@code nProcs} rank processes of {@code main} (skips the test where they cannot run a GPU). */
    static Ranks startRanks(int nProcs, Class<?> main, Map<String, String> extraEnv) throws Exception {
        assumeTrue(CudaDevice.isAvailable() && (CudaDevice.count() >= 2 || Boolean.getBoolean("jccl.cuda.shareDevices")),
                "needs 2 GPUs, or one shared (-Djccl.cuda.shareDevices=true)");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        for (int r = 0; r < nProcs; r++) {
            List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
                    "-XX:TieredStopAtLevel=1"));
            for (String k : System.getProperties().stringPropertyNames()) {
                if (k.startsWith("jccl.")) {
                    cmd.add("-D" + k + "=" + System.getProperty(k));
                }
            }
            cmd.addAll(List.of("-Djccl.cuda.llMaxBytes=1K", "-Djccl.cuda.pushMaxBytes=4K",
                    "-Djccl.cuda.ringChannels=4", "-Djccl.cuda.ringSlotBytes=4K", "-Djccl.cuda.maxBlocks=8",
                    "-cp", System.getProperty("java.class.path"), main.getName()));
            ProcessBuilder pb = new ProcessBuilder(cmd);
            Path log = Files.createTempFile("jccl-gpu-rank" + r + "-", ".log");
            pb.redirectErrorStream(true).redirectOutput(log.toFile());
            Map<String, String> env = pb.environment();
            env.put("RANK", Integer.toString(r));
            env.put("WORLD_SIZE", Integer.toString(nProcs));
            env.put("LOCAL_RANK", Integer.toString(r));
            env.put("JCCL_COMM_ID", "127.0.0.1:" + port);
            env.put("JCCL_COMM_SECRET", HexFormat.of().formatHex(secret));
            for (Map.Entry<String, String> e : extraEnv.entrySet()) {
                env.put(e.getKey(), e.getValue().replace("{rank}", Integer.toString(r))
                        .replace("{rank%2}", Integer.toString(r % 2)).replace("{rank/2}", Integer.toString(r / 2)));
            }
            procs.add(pb.start());
            logs.add(log);
        }
        return new Ranks(procs, logs);
    }
}
