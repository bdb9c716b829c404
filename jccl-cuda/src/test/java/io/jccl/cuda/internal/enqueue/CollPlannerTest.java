package io.jccl.cuda.internal.enqueue;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.AllReduceAlgorithm;
import io.jccl.cuda.GpuOptions;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.tuning.GpuNetTuning;
import io.jccl.internal.tuning.Protocol;
import io.jccl.internal.tuning.Selection;
import io.jccl.internal.tuning.Tuner;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CollPlannerTest {
    private static final GpuOptions D = GpuOptions.defaults();

    private static Plan plan(CollPlanner p, Collective c, long count, int elem, RedOp.Kind op) {
        Plan out = new Plan();
        p.plan(c, count, elem, op, out);
        return out;
    }

    @Test
    void theInitLogListsTheAllReduceKernelsBySize() {
        assertThat(new CollPlanner(D, 2, 132, true, true).allReduceRanges())
                .isEqualTo("ll128 to 4 MiB, twoshot to 64 MiB, ring above");
        assertThat(new CollPlanner(D.withLl128MaxBytes(0), 2, 132, true, true).allReduceRanges())
                .isEqualTo("ll to 512 KiB, push to 4 MiB, twoshot to 64 MiB, ring above");
        assertThat(new CollPlanner(D.withAlgorithm(AllReduceAlgorithm.RING), 2, 132, true, true).allReduceRanges())
                .isEqualTo("ring at every size");
    }

    @Test
    void allReduceOnTwoGpusOfOneProcessFollowsTheSizeThresholds() {
        CollPlanner byDefault = new CollPlanner(D, 2, 132, true, true);
        assertThat(byDefault.chooseAllReduce(8, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.LL128);
        assertThat(byDefault.chooseAllReduce(4 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.LL128);
        assertThat(byDefault.chooseAllReduce((4 << 20) + 16, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.TWO_SHOT);
        // Without LL128:
        CollPlanner p = new CollPlanner(D.withLl128MaxBytes(0), 2, 132, true, true);
        assertThat(p.chooseAllReduce(8, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.LL);
        assertThat(p.chooseAllReduce(512 << 10, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.LL);
        assertThat(p.chooseAllReduce((512 << 10) + 16, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.PUSH);
        assertThat(p.chooseAllReduce(4 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.PUSH);
        CollPlanner packed = new CollPlanner(D.withLl128MaxBytes(0).withLlPackedMaxBytes(4 << 20), 2, 132, true, true);
        assertThat(packed.chooseAllReduce((512 << 10) + 16, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.LL_PACKED);
        assertThat(packed.chooseAllReduce(4 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.LL_PACKED);
        assertThat(p.chooseAllReduce(8 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.TWO_SHOT);
        assertThat(p.chooseAllReduce(48 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.TWO_SHOT);
        CollPlanner oneShot = new CollPlanner(D.withPullFromBytes(1 << 20).withLl128MaxBytes(0), 2, 132, true, true);
        assertThat(oneShot.chooseAllReduce(2 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.ONE_SHOT);
        assertThat(p.chooseAllReduce(128 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.RING);
    }

    @Test
    void onlyThePairAllReduceTakesLlAbove64KiB() {
        CollPlanner four = new CollPlanner(D, 4, 132, true, true);
        assertThat(four.chooseAllReduce(64 << 10, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.LL);
        assertThat(four.chooseAllReduce(128 << 10, RedOp.Kind.SUM)).isNotEqualTo(AllReduceAlgorithm.LL);
        assertThat(four.chooseAllReduce(1 << 20, RedOp.Kind.SUM)).isNotEqualTo(AllReduceAlgorithm.LL_PACKED);
        CollPlanner forcedFour = new CollPlanner(D.withAlgorithm(AllReduceAlgorithm.LL_PACKED), 4, 132, true, true);
        assertThatThrownBy(() -> forcedFour.chooseAllReduce(1024, RedOp.Kind.SUM)).isInstanceOf(JcclException.class)
                .hasMessageContaining("2 ranks");
        CollPlanner two = new CollPlanner(D, 2, 132, true, true);
        Plan plan = new Plan();
        two.plan(Collective.ALL_GATHER, 32 << 10, 4, RedOp.Kind.SUM, plan);
        assertThat(plan.family()).isEqualTo(KernelFamily.RING_COPY);
        two.plan(Collective.ALL_GATHER, 16 << 10, 4, RedOp.Kind.SUM, plan);
        assertThat(plan.family()).isEqualTo(KernelFamily.LL_COPY);
        two.plan(Collective.ALL_REDUCE, 128 << 10, 4, RedOp.Kind.SUM, plan);
        assertThat(plan.family()).isEqualTo(KernelFamily.LL128);
        new CollPlanner(D.withLl128MaxBytes(0), 2, 132, true, true).plan(Collective.ALL_REDUCE, 128 << 10, 4,
                RedOp.Kind.SUM, plan);
        assertThat(plan.family()).isEqualTo(KernelFamily.LL);
    }

    @Test
    void oneProcessPerGpuAndPreMulSumNeverPullAndPushFurther() {
        CollPlanner ipc = new CollPlanner(D, 2, 132, false, true);
        assertThat(ipc.chooseAllReduce(8 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.PUSH);
        assertThat(ipc.chooseAllReduce(48 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.RING);
        CollPlanner all = new CollPlanner(D, 2, 132, true, true);
        assertThat(all.chooseAllReduce(8 << 20, RedOp.Kind.PRE_MUL_SUM)).isEqualTo(AllReduceAlgorithm.PUSH);
        assertThat(all.chooseAllReduce(48 << 20, RedOp.Kind.PRE_MUL_SUM)).isEqualTo(AllReduceAlgorithm.RING);
        CollPlanner forced = new CollPlanner(D.withAlgorithm(AllReduceAlgorithm.ONE_SHOT), 2, 132, false, true);
        assertThatThrownBy(() -> forced.chooseAllReduce(1 << 20, RedOp.Kind.SUM)).isInstanceOf(JcclException.class)
                .hasMessageContaining("initAll").matches(e -> ((JcclException) e).result() == Result.INVALID_USAGE);
    }

    @Test
    void forcedKernelsOutsideTheirCapacityAreRefused() {
        CollPlanner ll = new CollPlanner(D.withAlgorithm(AllReduceAlgorithm.LL), 2, 132, true, true);
        assertThatThrownBy(() -> ll.chooseAllReduce(1 << 20, RedOp.Kind.SUM)).isInstanceOf(JcclException.class)
                .hasMessageContaining("llMaxBytes");
        CollPlanner push = new CollPlanner(D.withAlgorithm(AllReduceAlgorithm.PUSH), 2, 132, true, true);
        assertThatThrownBy(() -> push.chooseAllReduce(64 << 20, RedOp.Kind.SUM)).isInstanceOf(JcclException.class)
                .hasMessageContaining("pushMaxBytes");
    }

    @Test
    void moreGpusShrinkTheOneShotRange() {
        CollPlanner p = new CollPlanner(D, 8, 132, true, true);
        assertThat(p.chooseAllReduce(1 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.TWO_SHOT);
        assertThat(p.chooseAllReduce(8 << 10, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.LL);
    }

    @Test
    void gridsGrowWithSizeAndStayWithinTheResidencyBound() {
        CollPlanner p = new CollPlanner(D, 2, 132, true, true);
        assertThat(plan(p, Collective.ALL_REDUCE, 2, 4, RedOp.Kind.SUM).blocks()).isEqualTo(1);
        Plan big = plan(p, Collective.ALL_REDUCE, 256L << 20, 4, RedOp.Kind.SUM);
        assertThat(big.family()).isEqualTo(KernelFamily.RING);
        assertThat(big.blocks()).isEqualTo(128);
        assertThat(big.chunkBytes()).isEqualTo(D.ringSlotBytes() * D.ringChunkSteps());
        CollPlanner small = new CollPlanner(D, 2, 4, true, true);
        assertThat(plan(small, Collective.ALL_REDUCE, 256L << 20, 4, RedOp.Kind.SUM).blocks()).isEqualTo(4);
        assertThat(small.blockLimit()).isEqualTo(4);
    }

    @Test
    void ll128TakesThePairAllReduceOverNvlinkAndGivesEachWarpAChunk() {
        CollPlanner p = new CollPlanner(D.withLl128MaxBytes(8 << 20), 2, 132, true, true);
        assertThat(p.chooseAllReduce(8, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.LL128);
        assertThat(p.chooseAllReduce(8 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.LL128);
        assertThat(p.chooseAllReduce((8 << 20) + 16, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.TWO_SHOT);
        // 512 KiB = 1093 chunks of 480 bytes: 69 blocks of 16 warps; 1 MiB would need 137, the limit is 128.
        Plan half = plan(p, Collective.ALL_REDUCE, (512L << 10) / 4, 4, RedOp.Kind.SUM);
        assertThat(half.family()).isEqualTo(KernelFamily.LL128);
        assertThat(half.blocks()).isEqualTo(69);
        assertThat(half.algorithmName()).isEqualTo("ll128");
        assertThat(plan(p, Collective.ALL_REDUCE, 1L << 18, 4, RedOp.Kind.SUM).blocks()).isEqualTo(128);
        // Two blocks per SM: 1 MiB gets its 137 blocks, 4 MiB the doubled limit of 256.
        CollPlanner two = new CollPlanner(D.withLl128MaxBytes(8 << 20).withLl128BlocksPerSm(2), 2, 132, true, true);
        assertThat(plan(two, Collective.ALL_REDUCE, 1L << 18, 4, RedOp.Kind.SUM).blocks()).isEqualTo(137);
        assertThat(plan(two, Collective.ALL_REDUCE, 1L << 20, 4, RedOp.Kind.SUM).blocks()).isEqualTo(256);
        assertThatThrownBy(() -> D.withLl128BlocksPerSm(3)).isInstanceOf(JcclException.class)
                .hasMessageContaining("ll128BlocksPerSm");
        // Without it, LL, then packed LL.
        CollPlanner off = new CollPlanner(D.withLl128MaxBytes(0).withLlMaxBytes(64 << 10)
                .withLlPackedMaxBytes(256 << 10), 2, 132, true, true);
        assertThat(off.chooseAllReduce(64 << 10, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.LL);
        assertThat(off.chooseAllReduce(256 << 10, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.LL_PACKED);
        CollPlanner four = new CollPlanner(D.withLl128MaxBytes(8 << 20), 4, 132, true, true);
        assertThat(four.chooseAllReduce(1 << 20, RedOp.Kind.SUM)).isNotEqualTo(AllReduceAlgorithm.LL128);
        CollPlanner forcedFour = new CollPlanner(D.withAlgorithm(AllReduceAlgorithm.LL128), 4, 132, true, true);
        assertThatThrownBy(() -> forcedFour.chooseAllReduce(1024, RedOp.Kind.SUM)).isInstanceOf(JcclException.class)
                .hasMessageContaining("2 ranks").hasMessageContaining("ll128MaxBytes");
    }

    @Test
    void withoutNvlinkNeitherPackedLlNorLl128IsChosenOrAllowed() {
        GpuOptions o = D.withLl128MaxBytes(8 << 20).withLlPackedMaxBytes(16 << 20);
        CollPlanner pcie = new CollPlanner(o, 2, 132, true, false);
        assertThat(pcie.chooseAllReduce(8, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.LL);
        assertThat(pcie.chooseAllReduce(1 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.PUSH);
        for (AllReduceAlgorithm a : new AllReduceAlgorithm[] {AllReduceAlgorithm.LL128, AllReduceAlgorithm.LL_PACKED}) {
            CollPlanner forced = new CollPlanner(o.withAlgorithm(a), 2, 132, true, false);
            assertThatThrownBy(() -> forced.chooseAllReduce(1024, RedOp.Kind.SUM)).isInstanceOf(JcclException.class)
                    .hasMessageContaining("NVLink").hasMessageContaining(a.shortName());
        }
    }

    @Test
    void packedLlSpreadsItsGroupsOverBlocksOfLlPackedBlockGroups() {
        CollPlanner p = new CollPlanner(D.withLl128MaxBytes(0).withLlPackedMaxBytes(4 << 20), 2, 132, true, true);
        // 512 KiB = 10923 groups of 48 bytes: 86 blocks of 128 groups; 1 MiB would need 171, the limit is 128.
        Plan half = plan(p, Collective.ALL_REDUCE, 128L << 10, 4, RedOp.Kind.SUM);
        assertThat(half.family()).isEqualTo(KernelFamily.LL);
        Plan mid = plan(p, Collective.ALL_REDUCE, (512L << 10) / 4 + 4, 4, RedOp.Kind.SUM);
        assertThat(mid.family()).isEqualTo(KernelFamily.LL_PACKED);
        assertThat(mid.blocks()).isEqualTo(86);
        assertThat(plan(p, Collective.ALL_REDUCE, 1L << 18, 4, RedOp.Kind.SUM).blocks()).isEqualTo(128);
        GpuOptions wide = new GpuOptions(D.algorithm(), D.llMaxBytes(), 4 << 20, D.pushMaxBytes(),
                D.pushChunkBytes(), D.pullFromBytes(), D.oneShotMaxBytes(), D.twoShotMaxBytes(), D.maxBlocks(),
                D.ringChannels(), D.ringSlotBytes(), D.ringChunkSteps(), D.packsPerThread(), D.pullUnroll(), 512, 0, 1,
                D.ctaPolicy());
        assertThat(plan(new CollPlanner(wide, 2, 132, true, true), Collective.ALL_REDUCE, 1L << 18, 4, RedOp.Kind.SUM)
                .blocks()).isEqualTo(43);
        assertThatThrownBy(() -> new GpuOptions(D.algorithm(), D.llMaxBytes(), 0, D.pushMaxBytes(),
                D.pushChunkBytes(), D.pullFromBytes(), D.oneShotMaxBytes(), D.twoShotMaxBytes(), D.maxBlocks(),
                D.ringChannels(), D.ringSlotBytes(), D.ringChunkSteps(), D.packsPerThread(), D.pullUnroll(), 48, 0, 1,
                D.ctaPolicy()))
                .isInstanceOf(JcclException.class).hasMessageContaining("llPackedBlockGroups");
    }

    @Test
    void otherCollectivesSwitchFromLlToRingPerPeerSize() {
        CollPlanner p = new CollPlanner(D, 2, 132, false, true);
        assertThat(plan(p, Collective.ALL_GATHER, 1024, 4, RedOp.Kind.SUM).family()).isEqualTo(KernelFamily.LL_COPY);
        assertThat(plan(p, Collective.ALL_GATHER, 1 << 20, 4, RedOp.Kind.SUM).family()).isEqualTo(KernelFamily.RING_COPY);
        assertThat(plan(p, Collective.BROADCAST, 1 << 20, 4, RedOp.Kind.SUM).family()).isEqualTo(KernelFamily.RING_COPY);
        assertThat(plan(p, Collective.REDUCE_SCATTER, 16, 2, RedOp.Kind.MAX).family()).isEqualTo(KernelFamily.LL);
        assertThat(plan(p, Collective.REDUCE, 1 << 24, 1, RedOp.Kind.SUM).family()).isEqualTo(KernelFamily.RING);
        assertThat(plan(p, Collective.ALL_TO_ALL, 1 << 20, 4, RedOp.Kind.SUM).family()).isEqualTo(KernelFamily.P2P);
        assertThat(plan(p, Collective.ALL_TO_ALL, 16, 4, RedOp.Kind.SUM).family()).isEqualTo(KernelFamily.LL_COPY);
    }

    @Test
    void oneRankAlwaysUsesTheLlKernels() {
        CollPlanner p = new CollPlanner(D, 1, 132, true, true);
        assertThat(plan(p, Collective.ALL_REDUCE, 1L << 28, 4, RedOp.Kind.SUM).family()).isEqualTo(KernelFamily.LL);
        assertThat(plan(p, Collective.ALL_GATHER, 1L << 28, 4, RedOp.Kind.SUM).family()).isEqualTo(KernelFamily.LL_COPY);
    }

    @Test
    void pointToPointBlocksDependOnBytesAloneAndLeaveRoomForAllPeers() {
        CollPlanner two = new CollPlanner(D, 2, 132, true, true);
        assertThat(two.p2pBlocks(1)).isEqualTo(1);
        assertThat(two.p2pBlocks(1L << 30)).isEqualTo((128 - CollPlanner.COPY_BLOCKS) / 2);
        CollPlanner eight = new CollPlanner(D, 8, 132, true, true);
        assertThat(eight.p2pBlocks(1L << 30) * 14 + CollPlanner.COPY_BLOCKS).isLessThanOrEqualTo(128);
    }

    /**
     * Ranks on several hosts reach each other only through the network proxy's FIFOs: every collective runs on the
     * ring and allToAll as sends and receives at every size (never LL, LL128, push or pull), forced kernels other
     * than the ring are refused naming the hosts, and the why names the transport.
     */
    @Test
    void callsOnWindowsRunTheSymmetricPullKernelsAlsoWithOneProcessPerGpu() {
        GpuOptions o = D.withLl128MaxBytes(0);
        CollPlanner ipc = new CollPlanner(o, 2, 132, false, false);   // one process per GPU: no shared pointers
        assertThat(ipc.chooseAllReduce(8 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.PUSH);
        assertThat(ipc.chooseAllReduce(8 << 20, RedOp.Kind.SUM, true)).isEqualTo(AllReduceAlgorithm.TWO_SHOT);
        assertThat(ipc.chooseAllReduce(8 << 20, RedOp.Kind.PRE_MUL_SUM, true)).isEqualTo(AllReduceAlgorithm.PUSH);
        Plan p = new Plan();
        ipc.plan(Collective.ALL_REDUCE, 2 << 20, 4, RedOp.Kind.SUM, true, p);
        assertThat(p.family()).isEqualTo(KernelFamily.PULL);
        assertThat(p.flags() & (KernelArgs.FLAG_WINDOW | KernelArgs.FLAG_TWO_SHOT))
                .isEqualTo(KernelArgs.FLAG_WINDOW | KernelArgs.FLAG_TWO_SHOT);
        assertThat(p.algorithmName()).isEqualTo("sym-twoshot");
        for (Collective c : new Collective[] {Collective.REDUCE_SCATTER, Collective.ALL_GATHER, Collective.BROADCAST}) {
            ipc.plan(c, 1 << 20, 4, RedOp.Kind.SUM, true, p);
            assertThat(p.family()).as(c.ncclName()).isEqualTo(KernelFamily.PULL);
            assertThat(p.flags() & KernelArgs.FLAG_WINDOW).isEqualTo(KernelArgs.FLAG_WINDOW);
            assertThat(p.algorithmName()).isEqualTo("sym-pull");
            ipc.plan(c, 1 << 20, 4, RedOp.Kind.SUM, false, p);
            assertThat(p.family()).as(c.ncclName()).isNotEqualTo(KernelFamily.PULL);
            ipc.plan(c, 8, 4, RedOp.Kind.SUM, true, p);   // within the LL size: LL, in a window or not
            assertThat(p.family().shortName()).startsWith("ll");
        }
        ipc.plan(Collective.REDUCE_SCATTER, 1 << 20, 4, RedOp.Kind.PRE_MUL_SUM, true, p);
        assertThat(p.family()).isEqualTo(KernelFamily.RING);
        ipc.plan(Collective.REDUCE, 1 << 20, 4, RedOp.Kind.SUM, true, p);
        assertThat(p.family()).isEqualTo(KernelFamily.RING);
        // one process (initAll): the windows' memory is addressable as it is; no window table needed
        CollPlanner clique = new CollPlanner(o, 2, 132, true, false);
        clique.plan(Collective.ALL_GATHER, 1 << 20, 4, RedOp.Kind.SUM, true, p);
        assertThat(p.family()).isEqualTo(KernelFamily.PULL);
        assertThat(p.flags() & KernelArgs.FLAG_WINDOW).isZero();
        assertThat(ipc.select(Collective.ALL_GATHER, 1 << 20, RedOp.Kind.SUM, true).algorithm()).isEqualTo("sym-pull");
        assertThat(ipc.select(Collective.ALL_GATHER, 1 << 20, RedOp.Kind.SUM, true).why()).contains("window");
        // across hosts a window does not exist; the planner keeps the ring even if asked
        CollPlanner hosts = new CollPlanner(o, 2, 132, false, false, 2, "NET/Socket");
        hosts.plan(Collective.ALL_GATHER, 1 << 20, 4, RedOp.Kind.SUM, true, p);
        assertThat(p.family()).isEqualTo(KernelFamily.RING_COPY);
    }

    @Test
    void acrossHostsNcclsNetModelPricesTheRingAndSetsItsChannels() {
        GpuOptions net = D.withRing(2, 128 << 10, 2);
        Tuner model = GpuNetTuning.create(4, 2, 2, 2, 90, 2, 24.0, PathType.PHB, 10_000, TopoEnv.of(Map.of()));
        try (CollPlanner p = new CollPlanner(net, 4, 132, false, false, 2, "NET/Socket", model)) {
            assertThat(plan(p, Collective.ALL_REDUCE, 8, 1, RedOp.Kind.SUM).blocks()).isEqualTo(1);
            assertThat(plan(p, Collective.ALL_REDUCE, 128 << 20, 1, RedOp.Kind.SUM).blocks()).isEqualTo(2);
            assertThat(plan(p, Collective.ALL_GATHER, 32 << 20, 1, RedOp.Kind.SUM).blocks()).isEqualTo(2);
            Selection s = p.select(Collective.ALL_REDUCE, 1 << 20, RedOp.Kind.SUM, false);
            assertThat(s.algorithm()).isEqualTo("ring");
            assertThat(s.predictedUs()).isPositive();
            assertThat(s.why()).startsWith("ranks on 2 hosts: ring/tree over NET/Socket; NCCL's model over NET (2 hosts,"
                    + " 1.25 GB/s a channel) predicts Ring/Simple x");
            assertThat(p.select(Collective.ALL_TO_ALL, 1 << 20, RedOp.Kind.SUM, false).predictedUs()).isEqualTo(-1);
            assertThat(p.netPricing()).matches("allReduce over NET/Socket priced by NCCL's model: 8 B [0-9]+ us"
                    + " \\(Ring/LL x1\\) 1 MiB [0-9]+ us \\(Ring/Simple x[12]\\) 128 MiB [0-9]+ us \\(Ring/Simple x2\\)");
            // the model's LL: one block on the connections' LL channel; Simple above
            Plan small = plan(p, Collective.ALL_GATHER, 100, 1, RedOp.Kind.SUM);
            assertThat(small.flags() & KernelArgs.FLAG_NET_LL).isEqualTo(KernelArgs.FLAG_NET_LL);
            assertThat(small.algorithmName()).isEqualTo("ring-ll");
            assertThat(small.chunkBytes()).isEqualTo((128 << 10) / 2);
            assertThat(p.select(Collective.ALL_REDUCE, 8, RedOp.Kind.SUM, false).protocol()).isEqualTo(Protocol.LL);
            Plan large = plan(p, Collective.ALL_REDUCE, 128 << 20, 1, RedOp.Kind.SUM);
            assertThat(large.flags() & KernelArgs.FLAG_NET_LL).isZero();
            assertThat(large.algorithmName()).isEqualTo("ring");
        }
        // a setting that leaves the kernels nothing fails at init, saying why
        Tuner tree = GpuNetTuning.create(4, 2, 2, 2, 90, 2, 24.0, PathType.PHB, 10_000,
                TopoEnv.of(Map.of("NCCL_ALGO", "Tree")));
        assertThatThrownBy(() -> new CollPlanner(net, 4, 132, false, false, 2, "NET/Socket", tree))
                .isInstanceOf(JcclException.class).hasMessageContaining("NCCL_ALGO was set to \"Tree\"")
                .hasMessageContaining("across hosts");
    }

    @Test
    void theTreeRunsAllReduceOnTwoBlocksAChannelWhenForcedOrChosenByTheModel() {
        GpuOptions net = D.withRing(2, 128 << 10, 2);
        // forced on one host: one chain, channels by bytes as the ring's
        CollPlanner one = new CollPlanner(D.withAlgorithm(AllReduceAlgorithm.TREE), 4, 132, false, false);
        Plan t = plan(one, Collective.ALL_REDUCE, 64 << 20, 1, RedOp.Kind.SUM);
        assertThat(t.family()).isEqualTo(KernelFamily.RING);
        assertThat(t.flags() & KernelArgs.FLAG_TREE).isEqualTo(KernelArgs.FLAG_TREE);
        assertThat(t.blocks()).isEqualTo(2 * t.channels()).isEqualTo(2 * Math.min(D.ringChannels(), one.blockLimit() / 2));
        assertThat(t.algorithmName()).isEqualTo("tree");
        assertThat(plan(one, Collective.ALL_REDUCE, 64, 1, RedOp.Kind.SUM).blocks()).isEqualTo(2);
        assertThat(plan(one, Collective.REDUCE_SCATTER, 64 << 20, 1, RedOp.Kind.SUM).flags() & KernelArgs.FLAG_TREE)
                .isZero();
        assertThat(one.select(Collective.ALL_REDUCE, 64 << 20, RedOp.Kind.SUM, false).nChannels())
                .isEqualTo(t.channels());
        // a grid of one resident block cannot hold the two blocks of a channel: forcing the tree is refused
        assertThatThrownBy(() -> plan(new CollPlanner(D.withAlgorithm(AllReduceAlgorithm.TREE), 4, 1, false, false),
                Collective.ALL_REDUCE, 1 << 20, 1, RedOp.Kind.SUM))
                .isInstanceOf(JcclException.class).hasMessageContaining("only 1 block resident");
        // across hosts NCCL_ALGO=allreduce:tree: the model's tree with its channels; allGather keeps the ring
        Tuner model = GpuNetTuning.create(4, 2, 2, 2, 90, 2, 24.0, PathType.PHB, 10_000,
                TopoEnv.of(Map.of("NCCL_ALGO", "allreduce:tree")));
        try (CollPlanner p = new CollPlanner(net, 4, 132, false, false, 2, "NET/Socket", model)) {
            for (long bytes : new long[] {8, 1 << 20, 128 << 20}) {
                Plan a = plan(p, Collective.ALL_REDUCE, bytes, 1, RedOp.Kind.SUM);
                assertThat(a.algorithmName()).isEqualTo("tree");
                assertThat(a.channels()).isBetween(1, 2);
                assertThat(a.blocks()).isEqualTo(2 * a.channels());
            }
            assertThat(plan(p, Collective.ALL_GATHER, 1 << 20, 1, RedOp.Kind.SUM).algorithmName()).isEqualTo("ring");
            assertThat(p.chooseAllReduce(1 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.TREE);
            assertThat(p.allReduceRanges()).isEqualTo("tree at every size");
            assertThat(p.netPricing()).contains("(Tree/Simple x");
            Selection s = p.select(Collective.ALL_REDUCE, 1 << 20, RedOp.Kind.SUM, false);
            assertThat(s.algorithm()).isEqualTo("tree");
            assertThat(s.why()).contains("predicts Tree/Simple");
        }
    }

    @Test
    void acrossHostsOnlyTheRingAndPointToPointRun() {
        GpuOptions net = D.withRing(2, 128 << 10, 2);
        for (int n : new int[] {2, 3, 8}) {
            CollPlanner p = new CollPlanner(net, n, 132, false, false, 2, "NET/Socket");
            assertThat(p.acrossHosts()).isTrue();
            assertThat(p.allReduceRanges()).isEqualTo("ring at every size");
            for (long bytes : new long[] {1, 8, 1 << 10, 64 << 10, 1 << 20, 1L << 30}) {
                assertThat(p.chooseAllReduce(bytes, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.RING);
                assertThat(p.chooseAllReduce(bytes, RedOp.Kind.PRE_MUL_SUM)).isEqualTo(AllReduceAlgorithm.RING);
                assertThat(plan(p, Collective.ALL_REDUCE, bytes, 1, RedOp.Kind.SUM).family())
                        .isEqualTo(KernelFamily.RING);
                assertThat(plan(p, Collective.REDUCE_SCATTER, bytes, 1, RedOp.Kind.SUM).family())
                        .isEqualTo(KernelFamily.RING);
                assertThat(plan(p, Collective.REDUCE, bytes, 1, RedOp.Kind.MAX).family())
                        .isEqualTo(KernelFamily.RING);
                assertThat(plan(p, Collective.ALL_GATHER, bytes, 1, RedOp.Kind.SUM).family())
                        .isEqualTo(KernelFamily.RING_COPY);
                assertThat(plan(p, Collective.BROADCAST, bytes, 1, RedOp.Kind.SUM).family())
                        .isEqualTo(KernelFamily.RING_COPY);
                assertThat(plan(p, Collective.ALL_TO_ALL, bytes, 1, RedOp.Kind.SUM).family())
                        .isEqualTo(KernelFamily.P2P);
                assertThat(plan(p, Collective.ALL_REDUCE, bytes, 1, RedOp.Kind.SUM).blocks()).isBetween(1, 2);
                assertThat(p.p2pBlocks(bytes)).isBetween(1, 2);
            }
            assertThat(p.select(Collective.ALL_REDUCE, 8, RedOp.Kind.SUM, false).why())
                    .isEqualTo("ranks on 2 hosts: ring/tree over NET/Socket");
            assertThat(p.select(Collective.ALL_TO_ALL, 8, RedOp.Kind.SUM, false).algorithm()).isEqualTo("p2p");
            assertThat(p.select(Collective.SEND_RECV, 8, RedOp.Kind.SUM, false).why())
                    .contains("ring/p2p over NET/Socket");
        }
        for (AllReduceAlgorithm a : AllReduceAlgorithm.values()) {
            CollPlanner forced = new CollPlanner(net.withAlgorithm(a), 2, 132, false, false, 3, "NET/Socket");
            if (a == AllReduceAlgorithm.AUTO || a == AllReduceAlgorithm.RING) {
                assertThat(forced.chooseAllReduce(1 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.RING);
            } else if (a == AllReduceAlgorithm.TREE) {
                assertThat(forced.chooseAllReduce(1 << 20, RedOp.Kind.SUM)).isEqualTo(AllReduceAlgorithm.TREE);
                assertThat(plan(forced, Collective.ALL_REDUCE, 1 << 20, 4, RedOp.Kind.SUM).algorithmName())
                        .isEqualTo("tree");
            } else {
                assertThatThrownBy(() -> forced.chooseAllReduce(64, RedOp.Kind.SUM)).isInstanceOf(JcclException.class)
                        .hasMessageContaining("3 hosts").hasMessageContaining("NET/Socket")
                        .hasMessageContaining(a.shortName());
            }
        }
        assertThatThrownBy(() -> new CollPlanner(net, 2, 132, false, true, 2, "NET/Socket"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
