package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@link Reducer} contract beyond element arithmetic: validation, flags, sharing, copies, error bound. */
class ReducerContractTest {

    @Test
    void integerPreMulSumNeedsAnIntegralScalar() {
        assertThatThrownBy(() -> Reducer.of(DataType.INT32, RedOp.preMulSum(2.5), 4))
                .isInstanceOfSatisfying(JcclException.class,
                        e -> assertThat(e.result()).isEqualTo(Result.INVALID_ARGUMENT))
                .hasMessageContaining("2.5").hasMessageContaining("INT32");
        assertThat(Reducer.of(DataType.FLOAT32, RedOp.preMulSum(2.5), 4).hasPreOp()).isTrue();
        assertThat(Reducer.of(DataType.UINT8, RedOp.preMulSum(-3), 4).hasPreOp()).isTrue();
    }

    @Test
    void rejectsBadFactoryArguments() {
        assertInvalid(() -> Reducer.of(DataType.FLOAT32, RedOp.SUM, 0), "nRanks 0");
        assertInvalid(() -> Reducer.of(null, RedOp.SUM, 2), "data type");
        assertInvalid(() -> Reducer.of(DataType.INT8, null, 2), "op");
    }

    @Test
    void rejectsBadCallArguments() {
        Reducer r = Reducer.of(DataType.FLOAT32, RedOp.SUM, 2);
        MemorySegment s = MemorySegment.ofArray(new float[8]);
        assertInvalid(() -> r.combine(s, 0, s, 0, s, 0, -1), "negative");
        assertInvalid(() -> r.combine(s, 0, s, 0, s, 4, 8), "destination bytes [4, 36)");
        assertInvalid(() -> r.accumulate(s, -4, s, 0, s, 0, 1, true), "source bytes [-4, 0)");
        assertInvalid(() -> r.prepare(s, 1, s, 0, 8, false), "source bytes [1, 33)");
        assertInvalid(() -> r.finish(s, 0, s.asReadOnly(), 0, 2), "read-only");
        assertInvalid(() -> r.combine(s, 0, s, 0, s, 0, Long.MAX_VALUE), "overflows");
        // count 0 is a no-op even on an empty segment
        r.combine(MemorySegment.NULL, 0, MemorySegment.NULL, 0, MemorySegment.NULL, 0, 0);
    }

    @Test
    void preAndPostOpFlags() {
        for (DataType t : DataType.values()) {
            assertThat(Reducer.of(t, RedOp.SUM, 4).hasPreOp()).isFalse();
            assertThat(Reducer.of(t, RedOp.SUM, 4).hasPostOp()).isFalse();
            assertThat(Reducer.of(t, RedOp.AVG, 4).hasPostOp()).isTrue();
            assertThat(Reducer.of(t, RedOp.AVG, 4).hasPreOp()).isFalse();
            assertThat(Reducer.of(t, RedOp.AVG, 1).hasPostOp()).as("division by one is the identity").isFalse();
            assertThat(Reducer.of(t, RedOp.preMulSum(2), 4).hasPreOp()).isTrue();
            assertThat(Reducer.of(t, RedOp.preMulSum(2), 4).hasPostOp()).isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void plainOpsAreSharedAndReportTheirTypeAndOp(DataType type) {
        for (RedOp op : List.of(RedOp.SUM, RedOp.PROD, RedOp.MIN, RedOp.MAX)) {
            Reducer a = Reducer.of(type, op, 2);
            assertThat(Reducer.of(type, op, 64)).isSameAs(a);
            assertThat(a.type()).isEqualTo(type);
            assertThat(a.op()).isEqualTo(op);
        }
        RedOp pms = RedOp.preMulSum(3);
        assertThat(Reducer.of(type, pms, 2).op()).isEqualTo(pms);
        assertThat(Reducer.of(type, RedOp.AVG, 2).type()).isEqualTo(type);
    }

    @Test
    void defaultFactoryUsesVectorsUnlessTheScalarPropertyIsSet() {
        boolean forced = Boolean.getBoolean(Simd.SCALAR_PROPERTY);
        assertThat(((ReducerBase) Reducer.of(DataType.FLOAT32, RedOp.SUM, 2)).vectorized()).isEqualTo(!forced);
        assertThat(Reducers.create(DataType.INT64, RedOp.MAX, 2, false).vectorized()).isFalse();
    }

    @Test
    void scalarPropertyTurnsVectorsOffInAFreshJvm() throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "--add-modules", "jdk.incubator.vector",
                "-D" + Simd.SCALAR_PROPERTY + "=true", "-cp", System.getProperty("java.class.path"),
                PrintVectorized.class.getName()).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(out).contains("vectorized=false").contains("[scalar forced]");
    }

    /**
     * A plain {@code java} without {@code --add-modules jdk.incubator.vector}: init, every type reduced across two
     * ranks with SUM and MAX, exact; no class of the Vector API is loaded, and one INFO line says the reductions run
     * scalar.
     */
    @Test
    void withoutTheVectorModuleReductionsRunScalar() throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED",
                "-verbose:class", "-cp", System.getProperty("java.class.path"), NoVectorModule.class.getName())
                .redirectErrorStream(true);
        pb.environment().put("NCCL_DEBUG", "INFO");
        pb.environment().put("NCCL_DEBUG_SUBSYS", "INIT");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("reductions run scalar loops: jdk.incubator.vector is not in the module graph")
                .contains("every type reduced exactly, vectorized=false")
                .doesNotContain("[class,load] jdk.incubator.vector.").doesNotContain("Exception in thread");
    }

    /** Entry point of the fresh JVM above. */
    public static final class NoVectorModule {
        public static void main(String[] args) throws Exception {
            if (ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()) {
                throw new AssertionError("the Vector API module is present");
            }
            List<io.jccl.Communicator> comms = io.jccl.Communicator.initAll(2, io.jccl.Config.defaults());
            int n = 1000;
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                for (DataType type : DataType.values()) {
                    for (RedOp op : List.of(RedOp.SUM, RedOp.MAX)) {
                        List<java.util.concurrent.Future<MemorySegment>> f = new java.util.ArrayList<>();
                        for (io.jccl.Communicator c : comms) {
                            f.add(pool.submit(() -> {
                                MemorySegment buf = java.lang.foreign.Arena.ofAuto().allocate((long) n
                                        * type.sizeBytes(), 16);
                                for (int i = 0; i < n; i++) {
                                    type.setDouble(buf, i, (i + c.rank()) % 4);
                                }
                                c.allReduce(buf, buf, n, type, op);
                                return buf;
                            }));
                        }
                        for (java.util.concurrent.Future<MemorySegment> r : f) {
                            MemorySegment buf = r.get(60, TimeUnit.SECONDS);
                            for (int i = 0; i < n; i++) {
                                double want = op == RedOp.SUM ? i % 4 + (i + 1) % 4 : Math.max(i % 4, (i + 1) % 4);
                                if (type.getDouble(buf, i) != want) {
                                    throw new AssertionError(type + " " + op + " element " + i + ": "
                                            + type.getDouble(buf, i) + " != " + want);
                                }
                            }
                        }
                    }
                }
            } finally {
                pool.shutdown();
                for (io.jccl.Communicator c : comms) {
                    c.close();
                }
            }
            System.out.println("every type reduced exactly, vectorized="
                    + ((ReducerBase) Reducer.of(DataType.FLOAT32, RedOp.SUM, 2)).vectorized() + " " + Simd.describe());
        }
    }

    /** Entry point of the fresh JVM above. */
    public static final class PrintVectorized {
        public static void main(String[] args) {
            System.out.println("vectorized=" + ((ReducerBase) Reducer.of(DataType.FLOAT32, RedOp.SUM, 2)).vectorized()
                    + " " + Simd.describe());
        }
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void copiesWithinOneSegmentToAnotherOffset(DataType type) {
        int n = 100;
        int size = type.sizeBytes();
        MemorySegment s = MemorySegment.ofArray(new byte[3 * n * size]);
        Random rnd = new Random(1);
        for (int i = 0; i < n * size; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
        }
        Reducer.of(type, RedOp.SUM, 3).prepare(s, 0, s, (long) n * size, n, true);
        Reducer.of(type, RedOp.AVG, 1).finish(s, 0, s, 2L * n * size, n);
        assertThat(s.asSlice((long) n * size, (long) n * size).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(s.asSlice(0, (long) n * size).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(s.asSlice(2L * n * size, (long) n * size).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void integerScalarIsTakenModuloTwoToTheBits() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment x = arena.allocate(8 * 3);
            MemorySegment d = arena.allocate(8 * 3);
            long[] in = {1, -7, Long.MAX_VALUE};
            for (int i = 0; i < 3; i++) {
                x.setAtIndex(ValueLayout.JAVA_LONG, i, in[i]);
            }
            Reducer.of(DataType.INT64, RedOp.preMulSum(0x1p64 + 0x1p12), 2).prepare(x, 0, d, 0, 3, false);
            for (int i = 0; i < 3; i++) {
                assertThat(d.getAtIndex(ValueLayout.JAVA_LONG, i)).isEqualTo(in[i] * 4096);
            }
            Reducer.of(DataType.UINT8, RedOp.preMulSum(-1), 2).prepare(x, 0, d, 0, 24, false);
            for (int i = 0; i < 24; i++) {
                assertThat(d.get(ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) -x.get(ValueLayout.JAVA_BYTE, i));
            }
        }
    }

    /**
     * A ring-style chain over n ranks (prepare, n-2 accumulates, a last accumulate) stays within the bound the
     * {@link Reducer} Javadoc states: |x̂ - Σx| ≤ γ(n-1)·Σ|x| (+ subnormal slack), γ(k) = k·u / (1 - k·u).
     */
    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "FLOAT32", "FLOAT64", "BFLOAT16", "FLOAT8_E4M3",
            "FLOAT8_E5M2"})
    void chainedSumStaysWithinTheDocumentedErrorBound(DataType type) {
        double u = switch (type) {
            case FLOAT16 -> 0x1p-11;
            case FLOAT32 -> 0x1p-24;
            case FLOAT64 -> 0x1p-53;
            case BFLOAT16 -> 0x1p-8;
            case FLOAT8_E4M3 -> 0x1p-4;
            default -> 0x1p-3;
        };
        double subnormalSlack = switch (type) {
            case FLOAT16 -> 0x1p-25;
            case FLOAT8_E4M3 -> 0x1p-10;
            case FLOAT8_E5M2 -> 0x1p-17;
            default -> 0;
        };
        int nRanks = 8;
        int count = 513;
        Random rnd = new Random(type.ordinal());
        Reducer r = Reducer.of(type, RedOp.SUM, nRanks);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment acc = arena.allocate((long) count * type.sizeBytes());
            MemorySegment[] inputs = new MemorySegment[nRanks];
            for (int k = 0; k < nRanks; k++) {
                inputs[k] = arena.allocate((long) count * type.sizeBytes());
                for (int i = 0; i < count; i++) {
                    type.setDouble(inputs[k], i, rnd.nextGaussian() * 4);        // |sum| stays far below fp8 max
                }
            }
            r.prepare(inputs[0], 0, acc, 0, count, false);
            for (int k = 1; k < nRanks; k++) {
                r.accumulate(acc, 0, inputs[k], 0, acc, 0, count, k == nRanks - 1);
            }
            double gamma = (nRanks - 1) * u / (1 - (nRanks - 1) * u);
            double worst = 0;
            for (int i = 0; i < count; i++) {
                java.math.BigDecimal exact = java.math.BigDecimal.ZERO;
                double abs = 0;
                for (int k = 0; k < nRanks; k++) {
                    double v = type.getDouble(inputs[k], i);
                    exact = exact.add(new java.math.BigDecimal(v));
                    abs += Math.abs(v);
                }
                double err = new java.math.BigDecimal(type.getDouble(acc, i)).subtract(exact).abs().doubleValue();
                double bound = gamma * abs + (nRanks - 1) * subnormalSlack;
                assertThat(err).as("element %d: exact %s", i, exact).isLessThanOrEqualTo(bound);
                worst = Math.max(worst, abs == 0 ? 0 : err / abs);
            }
            assertThat(worst).as("the bound is not vacuous: some rounding happened").isGreaterThan(0);
        }
    }

    private static void assertInvalid(Runnable call, String messagePart) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(JcclException.class,
                e -> assertThat(e.result()).isEqualTo(Result.INVALID_ARGUMENT)).hasMessageContaining(messagePart);
    }
}
