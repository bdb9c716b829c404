package io.jccl.cuda;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.internal.HostElements;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** allReduce on 2+ GPUs of this process, every kernel, checked element by element. Skipped with fewer GPUs. */
@Tag("gpu")
class GpuCliqueGpuTest {
    private static final long BUFFER_BYTES = 32L << 20;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final DataType[] TYPES = {DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16};
    private static final RedOp[] OPS = {RedOp.SUM, RedOp.PROD, RedOp.MIN, RedOp.MAX};

    private static CudaDevice[] devs;
    private static CudaStream[] streams;
    private static DeviceBuffer[] sendAll;
    private static DeviceBuffer[] recvAll;

    @BeforeAll
    static void needTwoGpus() {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 2, "needs 2 NVIDIA GPUs");
        int n = 2;
        devs = new CudaDevice[n];
        streams = new CudaStream[n];
        sendAll = new DeviceBuffer[n];
        recvAll = new DeviceBuffer[n];
        for (int g = 0; g < n; g++) {
            devs[g] = CudaDevice.get(g);
            streams[g] = CudaStream.create(devs[g]);
            sendAll[g] = DeviceBuffer.allocate(devs[g], BUFFER_BYTES);
            recvAll[g] = DeviceBuffer.allocate(devs[g], BUFFER_BYTES);
        }
    }

    @AfterAll
    static void free() {
        if (devs != null) {
            for (int g = 0; g < devs.length; g++) {
                sendAll[g].close();
                recvAll[g].close();
                streams[g].close();
            }
        }
    }

    static double input(RedOp op, int rank, long i) {
        return switch (op.kind()) {
            case PROD -> ((i + rank) % 3 == 0) ? 2 : 1;
            case MIN, MAX -> ((i * 7 + rank * 5) % 29) - 14;
            default -> (i % 13) + 1 + rank;
        };
    }

    static double expected(RedOp op, int n, long i) {
        double acc = input(op, 0, i);
        for (int r = 1; r < n; r++) {
            double x = input(op, r, i);
            acc = switch (op.kind()) {
                case PROD -> acc * x;
                case MIN -> Math.min(acc, x);
                case MAX -> Math.max(acc, x);
                default -> acc + x;
            };
        }
        return acc;
    }

    /** Runs one allReduce and returns a description of the first wrong element, or null. */
    static String runAndCheck(GpuClique c, DataType t, RedOp op, long count, boolean inPlace, long offsetElems) {
        int n = c.size();
        long bytes = count * t.sizeBytes();
        long off = offsetElems * t.sizeBytes();
        DeviceBuffer[] send = new DeviceBuffer[n];
        DeviceBuffer[] recv = new DeviceBuffer[n];
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(Math.max(bytes, 1), 16);
            for (int g = 0; g < n; g++) {
                send[g] = sendAll[g].slice(off, bytes);
                recv[g] = inPlace ? send[g] : recvAll[g].slice(off, bytes);
                for (long i = 0; i < count; i++) {
                    HostElements.set(t, h, i, input(op, g, i));
                }
                if (bytes > 0) {
                    send[g].copyFrom(h.asSlice(0, bytes));
                }
                if (!inPlace) {
                    recv[g].fillAsync((byte) 0xFF, streams[g]);
                }
            }
            c.allReduce(send, recv, count, t, op, streams);
            c.synchronize(streams, TIMEOUT);
            for (int g = 0; g < n; g++) {
                if (bytes == 0) {
                    continue;
                }
                recv[g].copyTo(h.asSlice(0, bytes));
                for (long i = 0; i < count; i++) {
                    double got = HostElements.get(t, h, i);
                    if (got != expected(op, n, i)) {
                        return c.algorithmFor(count, t, inPlace) + " " + t + " " + op + " count " + count
                                + (inPlace ? " in place" : "") + " offset " + offsetElems + ": GPU " + g + " element "
                                + i + " = " + got + ", expected " + expected(op, n, i);
                    }
                }
            }
        }
        return null;
    }

    @ParameterizedTest
    @EnumSource(value = AllReduceAlgorithm.class, names = {"LL", "PUSH", "ONE_SHOT", "TWO_SHOT", "RING"})
    void everyTypeOpAndShapeGivesExactResults(AllReduceAlgorithm algo) {
        CliqueOptions opts = CliqueOptions.defaults().withAlgorithm(algo);
        List<String> failures = new ArrayList<>();
        try (GpuClique c = GpuClique.open(opts, devs)) {
            for (DataType t : TYPES) {
                long maxCount = algo == AllReduceAlgorithm.LL ? opts.llMaxBytes() / t.sizeBytes() - 1 : (1 << 18) + 3;
                long[] counts = {1, 3, 8, 1001, 4099, Math.min(65536 + 3, maxCount), maxCount};
                for (RedOp op : OPS) {
                    for (long count : counts) {
                        for (boolean inPlace : new boolean[] {false, true}) {
                            if (inPlace && algo == AllReduceAlgorithm.ONE_SHOT) {
                                continue;
                            }
                            for (long offset : new long[] {0, 1}) {
                                String f = runAndCheck(c, t, op, count, inPlace, offset);
                                if (f != null) {
                                    failures.add(f);
                                }
                            }
                        }
                    }
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void largeMessagesCrossChannelsLoopsAndSlots() {
        long count = (3L << 20) + 7;
        for (AllReduceAlgorithm algo : new AllReduceAlgorithm[] {AllReduceAlgorithm.RING, AllReduceAlgorithm.ONE_SHOT,
            AllReduceAlgorithm.TWO_SHOT, AllReduceAlgorithm.PUSH}) {
            CliqueOptions opts = CliqueOptions.defaults().withAlgorithm(algo).withPushMaxBytes(16L << 20);
            try (GpuClique c = GpuClique.open(opts, devs)) {
                for (DataType t : TYPES) {
                    assertThat(runAndCheck(c, t, RedOp.SUM, count, false, 0)).isNull();
                    assertThat(runAndCheck(c, t, RedOp.MAX, count, algo != AllReduceAlgorithm.ONE_SHOT, 0)).isNull();
                }
            }
        }
    }

    @Test
    void consecutiveCallsOfMixedKernelsStayInStep() {
        try (GpuClique c = GpuClique.open(CliqueOptions.defaults(), devs)) {
            long[] counts = {5, 70_000, 17, 2_000_003, 1, 300_001, 8_000_000};
            for (int round = 0; round < 3; round++) {
                for (long count : counts) {
                    assertThat(runAndCheck(c, DataType.FLOAT32, RedOp.SUM, count, round == 1, 0)).isNull();
                }
            }
        }
    }

    @Test
    void llEpochWrapsAroundWithoutHangsOrStaleData() {
        try (GpuClique c = GpuClique.open(CliqueOptions.defaults().withAlgorithm(AllReduceAlgorithm.LL), devs)) {
            c.setLlEpochForTest(0xFFFFFFF9);
            long[] counts = {4000, 3, 16000, 1, 777};
            for (int i = 0; i < 20; i++) {
                long count = counts[i % counts.length];
                assertThat(runAndCheck(c, DataType.FLOAT32, RedOp.SUM, count, false, 0)).as("call " + i).isNull();
            }
        }
    }

    @Test
    void capturedCallsReplayCorrectly() {
        try (GpuClique c = GpuClique.open(CliqueOptions.defaults(), devs)) {
            long count = 1000;
            assertThat(runAndCheck(c, DataType.FLOAT32, RedOp.SUM, count, false, 0)).isNull();
            DeviceBuffer[] send = {sendAll[0].slice(0, 4000), sendAll[1].slice(0, 4000)};
            DeviceBuffer[] recv = {recvAll[0].slice(0, 4000), recvAll[1].slice(0, 4000)};
            CudaGraph[] graphs;
            try {
                for (CudaStream s : streams) {
                    s.beginCapture();
                }
                for (int i = 0; i < 5; i++) {
                    c.allReduce(send, recv, count, DataType.FLOAT32, RedOp.SUM, streams);
                }
                graphs = new CudaGraph[] {streams[0].endCapture(), streams[1].endCapture()};
            } finally {
                for (CudaStream s : streams) {
                    s.abortCapture();
                }
            }
            try {
                for (int rep = 0; rep < 4; rep++) {
                    recvAll[0].fillAsync((byte) 0xFF, streams[0]);
                    recvAll[1].fillAsync((byte) 0xFF, streams[1]);
                    graphs[0].launch(streams[0]);
                    graphs[1].launch(streams[1]);
                    c.synchronize(streams, TIMEOUT);
                    float[] out = new float[(int) count];
                    recvAll[rep % 2].slice(0, 4000).copyTo(MemorySegment.ofArray(out));
                    for (int i = 0; i < count; i++) {
                        assertThat((double) out[i]).as("replay " + rep + " element " + i).isEqualTo(expected(RedOp.SUM, 2, i));
                    }
                }
            } finally {
                graphs[0].close();
                graphs[1].close();
            }
            assertThat(runAndCheck(c, DataType.FLOAT32, RedOp.SUM, 3_000_000, false, 0)).isNull();
        }
    }

    @Test
    void abortReleasesAKernelWhosePeerNeverCame() {
        for (AllReduceAlgorithm algo : new AllReduceAlgorithm[] {AllReduceAlgorithm.ONE_SHOT, AllReduceAlgorithm.LL,
            AllReduceAlgorithm.RING, AllReduceAlgorithm.PUSH}) {
            GpuClique c = GpuClique.open(CliqueOptions.defaults().withAlgorithm(algo), devs);
            c.skipRankForTest(1);
            DeviceBuffer[] send = {sendAll[0].slice(0, 40_000), sendAll[1].slice(0, 40_000)};
            DeviceBuffer[] recv = {recvAll[0].slice(0, 40_000), recvAll[1].slice(0, 40_000)};
            c.allReduce(send, recv, 10_000, DataType.FLOAT32, RedOp.SUM, streams);
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> c.synchronize(streams, Duration.ofMillis(300))).isInstanceOf(JcclException.class)
                    .matches(e -> ((JcclException) e).result() == Result.TIMEOUT).hasMessageContaining("aborted");
            assertThat(System.nanoTime() - t0).as(algo + " released in time").isLessThan(10_000_000_000L);
            assertThat(c.isAborted()).isTrue();
            assertThat(streams[0].isIdle()).isTrue();
            assertThatThrownBy(() -> c.allReduce(send, recv, 10, DataType.FLOAT32, RedOp.SUM, streams))
                    .isInstanceOf(JcclException.class).matches(e -> ((JcclException) e).result() == Result.ABORTED);
            c.close();
        }
    }

    @Test
    void wrongArgumentsAreRefusedBeforeLaunching() {
        try (GpuClique c = GpuClique.open(CliqueOptions.defaults(), devs)) {
            DeviceBuffer[] swapped = {sendAll[1], sendAll[0]};
            assertThatThrownBy(() -> c.allReduce(swapped, recvAll, 10, DataType.FLOAT32, RedOp.SUM, streams))
                    .isInstanceOf(JcclException.class).hasMessageContaining("send[0] is on GPU 1");
            assertThatThrownBy(() -> c.allReduce(sendAll, recvAll, BUFFER_BYTES, DataType.FLOAT32, RedOp.SUM, streams))
                    .isInstanceOf(JcclException.class).hasMessageContaining("needs");
            assertThatThrownBy(() -> c.allReduce(sendAll, recvAll, 10, DataType.INT32, RedOp.SUM, streams))
                    .isInstanceOf(JcclException.class).matches(e -> ((JcclException) e).result() == Result.INVALID_ARGUMENT);
            assertThatThrownBy(() -> GpuClique.open(devs[0], devs[0])).isInstanceOf(JcclException.class)
                    .hasMessageContaining("twice");
        }
    }

    @Test
    void aOneGpuCliqueCopies() {
        try (GpuClique c = GpuClique.open(CliqueOptions.defaults(), devs[0])) {
            DeviceBuffer[] s = {sendAll[0].slice(0, 4000)};
            DeviceBuffer[] r = {recvAll[0].slice(0, 4000)};
            float[] in = new float[1000];
            for (int i = 0; i < in.length; i++) {
                in[i] = i + 0.5f;
            }
            s[0].copyFrom(MemorySegment.ofArray(in));
            c.allReduce(s, r, 1000, DataType.FLOAT32, RedOp.SUM, new CudaStream[] {streams[0]});
            streams[0].synchronize();
            float[] out = new float[1000];
            r[0].copyTo(MemorySegment.ofArray(out));
            assertThat(out).isEqualTo(in);
        }
    }
}
