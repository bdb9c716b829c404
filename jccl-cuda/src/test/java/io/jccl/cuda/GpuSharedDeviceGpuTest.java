package io.jccl.cuda;

import io.jccl.Collective;
import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.cuda.testing.GpuChecker;
import io.jccl.cuda.testing.GpuChecker.Case;
import io.jccl.cuda.testing.RingGraphFile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Several ranks on one GPU ({@code -Djccl.cuda.shareDevices=true}, for machines with a single GPU): every kernel
 * family of two, three, four and eight ranks, every collective of three and four ranks at LL sizes, and the ring kernels of four ranks on rings that do not visit them in order (0 2 1 3 and
 * 0 3 1 2 from NCCL_GRAPH_FILE), must be exact. Without the property a repeated GPU is refused. Needs one GPU (or the
 * CPU emulator).
 */
@Tag("gpu")
class GpuSharedDeviceGpuTest {
    private static final String SHARE = "jccl.cuda.shareDevices";

    @Test
    void aRepeatedGpuIsRefusedUnlessSharingIsAsked() {
        assumeTrue(CudaDevice.isAvailable(), "no GPU");
        assumeTrue(!io.jccl.cuda.internal.comm.Clique.sharesDevices(), "sharing asked for the whole run");
        CudaDevice d = CudaDevice.get(0);
        assertThatThrownBy(() -> GpuCommunicator.initAll(List.of(d, d)))
                .isInstanceOf(JcclException.class).hasMessageContaining("appears twice")
                .hasMessageContaining(SHARE);
    }

    /**
     * 2, 3, 4 and 8 ranks (every kernel's rank loops and peer tables, not only two ranks'; 3 for partitions that do
     * not divide evenly and rings of odd length; 8 is the most); the
     * packed LL and LL128 allReduce kernels exist for 2 ranks only.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 4, 8})
    void ranksOnOneGpuRunEveryCollectiveAndEveryAllReduceKernel(int n) {
        assumeTrue(CudaDevice.isAvailable(), "no GPU");
        List<CudaDevice> ds = Collections.nCopies(n, CudaDevice.get(0));
        List<Case> cases = new ArrayList<>();
        for (Collective coll : GpuCollectivesGpuTest.ALL) {
            for (long count : GpuCollectivesGpuTest.COUNTS) {
                boolean inPlaceOk = coll != Collective.SEND_RECV && coll != Collective.GATHER
                        && coll != Collective.SCATTER && coll != Collective.ALL_TO_ALL;
                cases.add(new Case(coll, DataType.FLOAT32, RedOp.Kind.SUM, count, false, (int) (count % n)));
                if (inPlaceOk) {
                    cases.add(new Case(coll, DataType.BFLOAT16, RedOp.Kind.MAX, count, true, (int) (count % n)));
                }
            }
        }
        GpuOptions small = GpuCollectivesGpuTest.withPull(GpuCollectivesGpuTest.smallOptions());
        assertThat(runShared(ds, small, cases, null)).isEmpty();

        List<AllReduceAlgorithm> algorithms = n == 2 ? List.of(AllReduceAlgorithm.LL, AllReduceAlgorithm.LL_PACKED,
                AllReduceAlgorithm.LL128, AllReduceAlgorithm.PUSH, AllReduceAlgorithm.ONE_SHOT,
                AllReduceAlgorithm.TWO_SHOT, AllReduceAlgorithm.RING, AllReduceAlgorithm.TREE)
                : List.of(AllReduceAlgorithm.LL, AllReduceAlgorithm.PUSH, AllReduceAlgorithm.ONE_SHOT,
                AllReduceAlgorithm.TWO_SHOT, AllReduceAlgorithm.RING,
                AllReduceAlgorithm.TREE);   // packed LL and LL128: 2 ranks only
        for (AllReduceAlgorithm a : algorithms) {
            GpuOptions o = small.withAlgorithm(a).withLl128MaxBytes(1 << 20).withLl128BlocksPerSm(2);
            List<Case> forced = new ArrayList<>();
            for (long count : new long[] {1, 999, 50_001}) {
                if (a != AllReduceAlgorithm.LL && a != AllReduceAlgorithm.LL_PACKED && a != AllReduceAlgorithm.PUSH
                        || count * 4 <= 1024) {
                    forced.add(new Case(Collective.ALL_REDUCE, DataType.FLOAT32, RedOp.Kind.SUM, count, false, 0));
                    forced.add(new Case(Collective.ALL_REDUCE, DataType.INT32, RedOp.Kind.MAX, count, true, 0));
                }
            }
            if (a == AllReduceAlgorithm.TREE && ds.getFirst().multiprocessorCount() / n < 2) {
                // n ranks on one GPU leave each one block resident: the tree's up and down blocks cannot both run
                assertThat(runShared(ds, o, List.of(), comms -> assertThatThrownBy(() -> comms.getFirst()
                        .algorithmFor(Collective.ALL_REDUCE, 1, DataType.FLOAT32, RedOp.SUM))
                        .hasMessageContaining("only 1 block resident"))).isEmpty();
                continue;
            }
            assertThat(runShared(ds, o, forced, comms -> assertThat(comms.getFirst()
                    .algorithmFor(Collective.ALL_REDUCE, 1, DataType.FLOAT32, RedOp.SUM)).startsWith(a.shortName())))
                    .as("%s", a).isEmpty();
        }
    }

    /**
     * Three and four ranks at LL sizes, every root of the rooted collectives between the others: two non-roots exchange nothing
     * in a rooted LL call, and the next call's writes between them used to wait for evidence that never came (any
     * 3+ GPU communicator hung, then timed out, on e.g. a small broadcast followed by a small allGather).
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {3, 4})
    void ranksOnOneGpuRunEveryCollectiveAtLlSizes(int n) {
        assumeTrue(CudaDevice.isAvailable(), "no GPU");
        CudaDevice d = CudaDevice.get(0);
        List<Case> cases = new ArrayList<>();
        for (int root = 0; root < n; root++) {
            for (Collective coll : GpuCollectivesGpuTest.ALL) {
                for (long count : new long[] {1, 7, 200}) {
                    cases.add(new Case(coll, DataType.FLOAT32, RedOp.Kind.SUM, count, false, root));
                }
            }
        }
        assertThat(runShared(Collections.nCopies(n, d), GpuCollectivesGpuTest.smallOptions(), cases, comms ->
                assertThat(comms.getFirst().algorithmFor(Collective.BROADCAST, 200, DataType.FLOAT32, RedOp.SUM))
                        .startsWith("ll"))).isEmpty();
    }

    @Test
    void fourRanksOnOneGpuFollowRingsFromAGraphFile(@TempDir Path dir) throws IOException {
        assumeTrue(CudaDevice.isAvailable(), "no GPU");
        CudaDevice d = CudaDevice.get(0);
        Path graph = RingGraphFile.write(dir, new int[] {0, 2, 1, 3}, new int[] {0, 3, 1, 2});
        List<Case> cases = new ArrayList<>();
        for (Collective coll : List.of(Collective.ALL_REDUCE, Collective.REDUCE_SCATTER, Collective.ALL_GATHER,
                Collective.BROADCAST, Collective.REDUCE)) {
            for (long count : new long[] {3001, 60001}) {
                for (int root = 0; root < (coll.rooted() ? 4 : 1); root++) {
                    cases.add(new Case(coll, DataType.FLOAT32, RedOp.Kind.SUM, count, false, root));
                    cases.add(new Case(coll, DataType.INT32, RedOp.Kind.MAX, count, true, root));
                }
            }
        }
        GpuOptions o = GpuCollectivesGpuTest.smallOptions().withAlgorithm(AllReduceAlgorithm.RING);
        System.setProperty("NCCL_GRAPH_FILE", graph.toString());
        try {
            assertThat(runShared(Collections.nCopies(4, d), o, cases, comms -> {
                for (GpuCommunicator g : comms) {
                    assertThat(g.rings()).isEqualTo(new int[][] {{0, 2, 1, 3}, {0, 3, 1, 2}});
                }
            })).isEmpty();
        } finally {
            System.clearProperty("NCCL_GRAPH_FILE");
        }
    }

    /** Opens {@code devices} with sharing allowed, checks them, runs the cases; returns the wrong ones. */
    private static List<String> runShared(List<CudaDevice> devices, GpuOptions o, List<Case> cases,
                                          java.util.function.Consumer<List<GpuCommunicator>> check) {
        List<GpuCommunicator> comms = withSharing(() -> GpuCommunicator.initAll(devices, Config.defaults(), o));
        try (GpuChecker c = new GpuChecker(comms, 1 << 20, GpuCollectivesGpuTest.TIMEOUT)) {
            if (check != null) {
                check.accept(comms);
            }
            return GpuCollectivesGpuTest.runAll(c, cases);
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /**
     * Ranks sharing a GPU launch without programmatic dependent launch (with it, two ranks' kernels and their
     * already-resident successors filled an H100 at 64 MiB allGather and waited for each other until the limit), and
     * the INIT line says so; ranks on GPUs of their own keep it.
     */
    @Test
    void ranksSharingAGpuLaunchWithoutProgrammaticDependentLaunch() {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 2, "needs 2 GPUs (or the CPU emulator)");
        List<String> infos = new java.util.concurrent.CopyOnWriteArrayList<>();
        io.jccl.internal.debug.LogSink previous = io.jccl.internal.debug.Log.useSink((level, subsys, rank, message) -> {
            if (subsys == io.jccl.internal.debug.Subsys.INIT && message.contains("init COMPLETE")) {
                infos.add(message);
            }
        });
        io.jccl.internal.debug.Log.set(io.jccl.internal.debug.Log.Level.INFO, "INIT");
        try {
            CudaDevice d = CudaDevice.get(0);
            withSharing(() -> GpuCommunicator.initAll(List.of(d, d))).forEach(GpuCommunicator::close);
            assertThat(infos).hasSize(2).allSatisfy(m -> assertThat(m)
                    .contains("programmatic launch off: ranks share a GPU"));
            infos.clear();
            GpuCommunicator.initAll(List.of(d, CudaDevice.get(1))).forEach(GpuCommunicator::close);
            assertThat(infos).hasSize(2).noneSatisfy(m -> assertThat(m).contains("programmatic launch off"));
        } finally {
            io.jccl.internal.debug.Log.useSink(previous);
            io.jccl.internal.debug.Log.reconfigure();
        }
    }

    private static <T> T withSharing(Supplier<T> body) {
        String before = System.setProperty(SHARE, "true");
        try {
            return body.get();
        } finally {
            if (before == null) {
                System.clearProperty(SHARE);
            } else {
                System.setProperty(SHARE, before);
            }
        }
    }
}
