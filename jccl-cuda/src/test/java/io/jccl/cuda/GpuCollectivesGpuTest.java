package io.jccl.cuda;

import io.jccl.Collective;
import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.testing.GpuChecker;
import io.jccl.cuda.testing.GpuChecker.Case;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every collective of {@link GpuCommunicator#initAll} on 2 GPUs of this process, every element type, every
 * reduction, in and out of place, at counts that reach every kernel: the options shrink the size thresholds so
 * that small buffers exercise LL, push, pull one-/two-shot and the ring (with several channels and FIFO wraps).
 * Skipped without 2 GPUs (runs on the CPU emulator too: -Djccl.cuda.library=.../libjccl_emu.so).
 */
@Tag("gpu")
class GpuCollectivesGpuTest {
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    static final long[] COUNTS = {1, 7, 200, 3001, 20011};
    static final Collective[] ALL = {Collective.ALL_REDUCE, Collective.REDUCE_SCATTER, Collective.REDUCE,
        Collective.ALL_GATHER, Collective.BROADCAST, Collective.ALL_TO_ALL, Collective.SEND_RECV, Collective.GATHER,
        Collective.SCATTER};
    static final Collective[] REDUCING = {Collective.ALL_REDUCE, Collective.REDUCE_SCATTER, Collective.REDUCE};

    private static List<GpuCommunicator> comms;
    private static GpuChecker checker;

    /**
     * Thresholds small enough that a few KiB reach every kernel: LL 1K, packed LL 2K, LL128 3K, push 4K, one-shot
     * 16K, two-shot 32K.
     */
    static GpuOptions smallOptions() {
        return GpuOptions.defaults().withLlMaxBytes(1 << 10).withLlPackedMaxBytes(2 << 10).withLl128MaxBytes(3 << 10)
                .withPushMaxBytes(4 << 10)
                .withPushChunkBytes(256)
                .withPullFromBytes(4 << 10).withMaxBlocks(8)
                .withRing(4, 4 << 10, 2);
    }

    static GpuOptions withPull(GpuOptions o) {
        return new GpuOptions(o.algorithm(), o.llMaxBytes(), o.llPackedMaxBytes(), o.pushMaxBytes(), o.pushChunkBytes(), o.pullFromBytes(),
                16 << 10, 32 << 10, o.maxBlocks(),
                o.ringChannels(), o.ringSlotBytes(), o.ringChunkSteps(), o.packsPerThread(), o.pullUnroll(),
                o.llPackedBlockGroups(), o.ll128MaxBytes(), o.ll128BlocksPerSm(), o.ctaPolicy());
    }

    /**
     * GPUs 0 and 1; on a machine with one GPU run with {@code -Djccl.cuda.shareDevices=true}, GPU 0 twice (both ranks
     * on it, each with half its multiprocessors).
     */
    static List<CudaDevice> twoGpus() {
        return gpus(2);
    }

    /** GPUs 0 to n-1, or GPU 0 n times where the run shares devices; skipped otherwise. */
    static List<CudaDevice> gpus(int n) {
        boolean share = io.jccl.cuda.internal.comm.Clique.sharesDevices();
        assumeTrue(CudaDevice.isAvailable() && (CudaDevice.count() >= n || share), "needs " + n + " GPUs");
        List<CudaDevice> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(CudaDevice.get(CudaDevice.count() >= n ? i : 0));
        }
        return out;
    }

    @BeforeAll
    static void open() {
        comms = GpuCommunicator.initAll(twoGpus(), Config.defaults(), withPull(smallOptions()));
        checker = new GpuChecker(comms, 1 << 20, TIMEOUT);
    }

    @AfterAll
    static void close() {
        if (checker != null) {
            checker.close();
        }
        if (comms != null) {
            comms.forEach(GpuCommunicator::close);
        }
    }

    static List<String> runAll(GpuChecker c, List<Case> cases) {
        List<String> wrong = new ArrayList<>();
        for (Case k : cases) {
            String w = c.run(k);
            if (w != null) {
                wrong.add(w);
            }
        }
        return wrong;
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void everyCollectiveOfEveryTypeSums(DataType t) {
        List<Case> cases = new ArrayList<>();
        for (Collective coll : ALL) {
            for (long count : COUNTS) {
                for (boolean inPlace : new boolean[] {false, true}) {
                    boolean noInPlace = coll == Collective.SEND_RECV || coll == Collective.GATHER
                            || coll == Collective.SCATTER
                            || (coll == Collective.ALL_TO_ALL && count * t.sizeBytes() > smallOptions().llMaxBytes());
                    if (inPlace && noInPlace) {
                        continue;
                    }
                    cases.add(new Case(coll, t, RedOp.Kind.SUM, count, inPlace, (int) (count % 2)));
                }
            }
        }
        assertThat(runAll(checker, cases)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = RedOp.Kind.class, names = {"PROD", "MIN", "MAX", "AVG", "PRE_MUL_SUM"})
    void everyReductionOnSeveralTypes(RedOp.Kind op) {
        DataType[] types = {DataType.FLOAT32, DataType.BFLOAT16, DataType.FLOAT16, DataType.FLOAT8_E4M3,
            DataType.FLOAT8_E5M2, DataType.INT8, DataType.UINT8, DataType.INT32, DataType.UINT64, DataType.FLOAT64};
        List<Case> cases = new ArrayList<>();
        for (DataType t : types) {
            for (Collective coll : REDUCING) {
                for (long count : new long[] {3, 300, 3001, 20011}) {
                    cases.add(new Case(coll, t, op, count, false, 1));
                    if (coll == Collective.ALL_REDUCE) {
                        cases.add(new Case(coll, t, op, count, true, 0));
                    }
                }
            }
        }
        assertThat(runAll(checker, cases)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = AllReduceAlgorithm.class, names = {"LL", "LL_PACKED", "LL128", "PUSH", "ONE_SHOT", "TWO_SHOT",
            "RING", "TREE"})
    void everyAllReduceAlgorithmForced(AllReduceAlgorithm a) {
        // LL128 forced up to 1 MiB: 50,001 floats are 417 chunks, several per warp on each of the 8 blocks.
        GpuOptions o = withPull(smallOptions()).withAlgorithm(a).withLl128MaxBytes(1 << 20);
        List<GpuCommunicator> forced = GpuCommunicator.initAll(twoGpus(), Config.defaults(), o);
        try (GpuChecker c = new GpuChecker(forced, 1 << 20, TIMEOUT)) {
            List<Case> cases = new ArrayList<>();
            long max = switch (a) {
                case LL -> o.llMaxBytes();
                case LL_PACKED -> o.llPackedMaxBytes();
                case LL128 -> o.ll128MaxBytes();
                case PUSH -> o.pushMaxBytes();
                default -> 200_000;
            };
            for (DataType t : new DataType[] {DataType.FLOAT32, DataType.BFLOAT16, DataType.INT8}) {
                for (long count : new long[] {1, 5, 64, 999, 4097, 50_001}) {
                    if (count * t.sizeBytes() <= max) {
                        cases.add(new Case(Collective.ALL_REDUCE, t, RedOp.Kind.SUM, count, false, 0));
                        cases.add(new Case(Collective.ALL_REDUCE, t, RedOp.Kind.MAX, count, true, 0));
                    }
                }
            }
            assertThat(forced.getFirst().algorithmFor(Collective.ALL_REDUCE, 5, DataType.FLOAT32, RedOp.SUM))
                    .startsWith(a.shortName());
            assertThat(runAll(c, cases)).isEmpty();
        } finally {
            forced.forEach(GpuCommunicator::close);
        }
    }

    @Test
    void ll128WithTwoBlocksPerMultiprocessor() {
        GpuOptions o = withPull(smallOptions()).withAlgorithm(AllReduceAlgorithm.LL128).withLl128MaxBytes(1 << 20)
                .withLl128BlocksPerSm(2);
        List<GpuCommunicator> forced = GpuCommunicator.initAll(twoGpus(), Config.defaults(), o);
        try (GpuChecker c = new GpuChecker(forced, 1 << 20, TIMEOUT)) {
            List<Case> cases = new ArrayList<>();
            for (long count : new long[] {5, 4097, 50_001, 200_000}) {
                cases.add(new Case(Collective.ALL_REDUCE, DataType.FLOAT32, RedOp.Kind.SUM, count, false, 0));
                cases.add(new Case(Collective.ALL_REDUCE, DataType.BFLOAT16, RedOp.Kind.MAX, count, true, 0));
            }
            CudaDevice d = forced.getFirst().device();
            int sharing = d == forced.get(1).device() ? 2 : 1;
            int limit = 2 * Math.min(o.maxBlocks(), d.multiprocessorCount() / sharing);
            assertThat(forced.getFirst().algorithmFor(Collective.ALL_REDUCE, 200_000, DataType.FLOAT32, RedOp.SUM))
                    .isEqualTo("ll128 x" + limit);
            assertThat(runAll(c, cases)).isEmpty();
        } finally {
            forced.forEach(GpuCommunicator::close);
        }
    }

    @Test
    void callsOnDifferentStreamsRunInCallOrder() throws Exception {
        GpuCommunicator g0 = comms.get(0);
        GpuCommunicator g1 = comms.get(1);
        try (CudaStream a0 = CudaStream.create(g0.device()); CudaStream a1 = CudaStream.create(g1.device());
             DeviceBuffer b0 = DeviceBuffer.allocate(g0.device(), 4096);
             DeviceBuffer b1 = DeviceBuffer.allocate(g1.device(), 4096)) {
            float[] ones = new float[1024];
            java.util.Arrays.fill(ones, 1f);
            b0.copyFrom(java.lang.foreign.MemorySegment.ofArray(ones));
            b1.copyFrom(java.lang.foreign.MemorySegment.ofArray(ones));
            for (int i = 0; i < 6; i++) {
                CudaStream s0 = i % 2 == 0 ? a0 : checker.stream(0);
                CudaStream s1 = i % 2 == 0 ? a1 : checker.stream(1);
                g0.allReduce(b0, b0, 1024, DataType.FLOAT32, RedOp.SUM, s0);
                g1.allReduce(b1, b1, 1024, DataType.FLOAT32, RedOp.SUM, s1);
            }
            a0.synchronize();
            a1.synchronize();
            checker.synchronize();
            float[] out = new float[1024];
            b1.copyTo(java.lang.foreign.MemorySegment.ofArray(out));
            assertThat(out).containsOnly(64f);
        }
    }

    /**
     * Buffers that do not start on 16 bytes (nor, for int8, on 8): every allReduce kernel falls back from 16-byte
     * packs to words or elements there. Sizes reach LL128, push, one-shot and two-shot with the test thresholds.
     */
    @Test
    void allReduceOnBuffersAtOddOffsets() {
        assertThat(oddOffsetWrong(DataType.FLOAT32, new long[] {5, 333, 700, 1000, 3000, 6000}, 4, 12)).isZero();
        assertThat(oddOffsetWrong(DataType.FLOAT32, new long[] {700, 1000}, 8, 4)).isZero();
        assertThat(oddOffsetWrong(DataType.INT8, new long[] {3, 2999, 3999, 10_000}, 1, 3)).isZero();
    }

    /** Wrong elements over both ranks and every count, out of place, input at inOff and output at outOff bytes. */
    private static long oddOffsetWrong(DataType t, long[] counts, long inOff, long outOff) {
        int n = comms.size();
        long most = java.util.Arrays.stream(counts).max().orElseThrow() * t.sizeBytes() + 64;
        List<DeviceBuffer> ins = new ArrayList<>();
        List<DeviceBuffer> outs = new ArrayList<>();
        long wrong = 0;
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            for (GpuCommunicator g : comms) {
                ins.add(DeviceBuffer.allocate(g.device(), most));
                outs.add(DeviceBuffer.allocate(g.device(), most));
            }
            for (long count : counts) {
                long bytes = count * t.sizeBytes();
                java.lang.foreign.MemorySegment h = arena.allocate(bytes, 16);
                for (int g = 0; g < n; g++) {
                    for (long i = 0; i < count; i++) {
                        if (t == DataType.INT8) {
                            h.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i % 7 + g));
                        } else {
                            h.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i, (float) (i % 7 + g));
                        }
                    }
                    ins.get(g).slice(inOff, bytes).copyFrom(h);
                }
                for (int g = 0; g < n; g++) {
                    comms.get(g).allReduce(ins.get(g).slice(inOff, bytes), outs.get(g).slice(outOff, bytes), count, t,
                            RedOp.SUM, checker.stream(g));
                }
                checker.synchronize();
                for (int g = 0; g < n; g++) {
                    outs.get(g).slice(outOff, bytes).copyTo(h);
                    for (long i = 0; i < count; i++) {
                        double want = n * (i % 7) + n * (n - 1) / 2.0;
                        double got = t == DataType.INT8 ? h.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i)
                                : h.getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i);
                        if (got != want) {
                            wrong++;
                        }
                    }
                }
            }
        } finally {
            ins.forEach(DeviceBuffer::close);
            outs.forEach(DeviceBuffer::close);
        }
        return wrong;
    }

    @Test
    void argumentErrorsNameRankGpuAndCall() {
        GpuCommunicator g0 = comms.get(0);
        try (DeviceBuffer small = DeviceBuffer.allocate(g0.device(), 64);
             DeviceBuffer other = DeviceBuffer.allocate(comms.get(1).device(), 64)) {
            assertThatThrownBy(() -> g0.allReduce(small, small, 100, DataType.FLOAT32, RedOp.SUM, checker.stream(0)))
                    .isInstanceOf(JcclException.class).hasMessageContaining("rank 0/2")
                    .hasMessageContaining("allReduce").hasMessageContaining("has 64 bytes")
                    .matches(e -> ((JcclException) e).result() == Result.INVALID_ARGUMENT);
            boolean twoDevices = g0.device() != comms.get(1).device();   // not so when ranks share a GPU
            if (twoDevices) {
                assertThatThrownBy(() -> g0.broadcast(other, other, 4, DataType.FLOAT32, 0, checker.stream(0)))
                        .hasMessageContaining("GPU " + comms.get(1).device().ordinal());
            }
            assertThatThrownBy(() -> g0.send(small, 4, DataType.FLOAT32, 5, checker.stream(0)))
                    .hasMessageContaining("peer 5");
            if (twoDevices) {
                assertThatThrownBy(() -> g0.allReduce(small, small, 4, DataType.FLOAT32, RedOp.SUM, checker.stream(1)))
                        .hasMessageContaining("stream");
            }
        }
    }
}
