package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.internal.reduce.ReferenceReducer.Method;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.fail;

/**
 * Every type × op × entry point against {@link ReferenceReducer}, for the vector and the scalar loops, which must
 * also agree with each other bit for bit (NaN payloads aside, except fp8 where NaN is canonical). Counts cover
 * tails around the vector width; layouts cover heap (byte[] and long[]) and native segments at misaligned offsets;
 * aliasing covers a destination equal to either source. Bytes around the destination range must stay untouched.
 * Vector kernels are marked hot first, so they run over whole ranges rather than {@link Warmup}'s probes.
 */
class ReducerTest {
    private static final int[] COUNTS = {0, 1, 2, 7, 15, 16, 17, 1000, 4099};

    enum Memory { HEAP_BYTES, HEAP_LONGS, NATIVE }

    enum Alias { NONE, FIRST, SECOND }

    record Layout(Memory memory, int aOff, int bOff, int dOff) {
    }

    private static final List<Layout> SMALL_LAYOUTS = List.of(
            new Layout(Memory.HEAP_BYTES, 0, 0, 0), new Layout(Memory.HEAP_BYTES, 1, 3, 2),
            new Layout(Memory.HEAP_LONGS, 3, 0, 1), new Layout(Memory.NATIVE, 0, 0, 0),
            new Layout(Memory.NATIVE, 3, 1, 0), new Layout(Memory.NATIVE, 1, 1, 3));
    private static final List<Layout> LARGE_LAYOUTS = List.of(
            new Layout(Memory.HEAP_BYTES, 1, 3, 0), new Layout(Memory.NATIVE, 0, 0, 0));

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (DataType type : DataType.values()) {
            List<RedOp> ops = new ArrayList<>(List.of(RedOp.SUM, RedOp.PROD, RedOp.MIN, RedOp.MAX));
            out.add(Arguments.of(type, RedOp.AVG, 3));
            out.add(Arguments.of(type, RedOp.AVG, 1));
            if (type.isFloatingPoint()) {
                ops.add(RedOp.preMulSum(0.3));
                ops.add(RedOp.preMulSum(-2.5));
            } else {
                ops.add(RedOp.preMulSum(-3));
                ops.add(RedOp.preMulSum(1e12 + 7));
            }
            for (RedOp op : ops) {
                out.add(Arguments.of(type, op, 4));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} nRanks={2}")
    @MethodSource("cases")
    void matchesTheReferenceOnEveryPathLayoutAndAlias(DataType type, RedOp op, int nRanks) {
        Warmup.markHot(type);                    // full-length vector loops; WarmupTest covers the cold path
        ReducerBase vector = Reducers.create(type, op, nRanks, true);
        ReducerBase scalar = Reducers.create(type, op, nRanks, false);
        ReferenceReducer ref = new ReferenceReducer(type, op, nRanks);
        Random rnd = new Random(type.ordinal() * 131L + op.hashCode() * 31L + nRanks);
        InputGenerator gen = new InputGenerator(type, rnd);
        try (Arena arena = Arena.ofConfined()) {
            for (int count : COUNTS) {
                boolean small = count <= 17;
                // large counts: one layout each, alternating heap and native, to keep the suite fast
                List<Layout> layouts = small ? SMALL_LAYOUTS : List.of(LARGE_LAYOUTS.get(count % 2));
                for (Layout layout : layouts) {
                    for (Method method : Method.values()) {
                        for (Alias alias : Alias.values()) {
                            if ((!small && alias != Alias.NONE) || (alias == Alias.SECOND && method.inputs < 2)) {
                                continue;
                            }
                            long[] x = gen.next(count);
                            long[] y = gen.next(count);
                            Case c = new Case(type, ref, method, layout, alias, x, y);
                            long[] v = c.run(arena, vector);
                            long[] s = c.run(arena, scalar);
                            c.checkAgainstReference(v, "vector");
                            c.checkAgainstReference(s, "scalar");
                            c.checkSame(v, s);
                        }
                    }
                }
            }
        }
    }

    /** One call: its inputs, where they live, and how to check the result. */
    private record Case(DataType type, ReferenceReducer ref, Method method, Layout layout, Alias alias, long[] x,
                        long[] y) {
        private static final int SLACK = 24;

        long[] run(Arena arena, Reducer r) {
            int size = type.sizeBytes();
            int count = x.length;
            long bytes = (long) count * size;
            MemorySegment a = allocate(arena, bytes + layout.aOff + SLACK);
            MemorySegment b = allocate(arena, bytes + layout.bOff + SLACK);
            MemorySegment d = allocate(arena, bytes + layout.dOff + SLACK);
            a.fill((byte) 0x5A);
            b.fill((byte) 0xA5);
            d.fill((byte) 0x5A);
            for (int i = 0; i < count; i++) {
                RawBits.put(a, layout.aOff + (long) i * size, size, x[i]);
                RawBits.put(b, layout.bOff + (long) i * size, size, y[i]);
            }
            MemorySegment dst = switch (alias) {
                case NONE -> d;
                case FIRST -> a;
                case SECOND -> b;
            };
            long dOff = switch (alias) {
                case NONE -> layout.dOff;
                case FIRST -> layout.aOff;
                case SECOND -> layout.bOff;
            };
            byte[] before = dst.toArray(ValueLayout.JAVA_BYTE);
            switch (method) {
                case COMBINE -> r.combine(a, layout.aOff, b, layout.bOff, dst, dOff, count);
                case ACCUMULATE -> r.accumulate(a, layout.aOff, b, layout.bOff, dst, dOff, count, false);
                case ACCUMULATE_LAST -> r.accumulate(a, layout.aOff, b, layout.bOff, dst, dOff, count, true);
                case PREPARE -> r.prepare(a, layout.aOff, dst, dOff, count, false);
                case PREPARE_LAST -> r.prepare(a, layout.aOff, dst, dOff, count, true);
                case FINISH -> r.finish(a, layout.aOff, dst, dOff, count);
            }
            byte[] after = dst.toArray(ValueLayout.JAVA_BYTE);
            for (int i = 0; i < after.length; i++) {
                if ((i < dOff || i >= dOff + bytes) && after[i] != before[i]) {
                    fail("%s wrote byte %d outside its destination range [%d, %d)", this, i, dOff, dOff + bytes);
                }
            }
            long[] out = new long[count];
            for (int i = 0; i < count; i++) {
                out[i] = RawBits.get(dst, dOff + (long) i * size, size);
            }
            return out;
        }

        private MemorySegment allocate(Arena arena, long bytes) {
            return switch (layout.memory) {
                case HEAP_BYTES -> MemorySegment.ofArray(new byte[(int) bytes]);
                case HEAP_LONGS -> MemorySegment.ofArray(new long[(int) (bytes + 7) / 8]).asSlice(0, bytes);
                case NATIVE -> arena.allocate(bytes, 64);
            };
        }

        void checkAgainstReference(long[] actual, String path) {
            boolean fp8 = type == DataType.FLOAT8_E4M3 || type == DataType.FLOAT8_E5M2;
            for (int i = 0; i < actual.length; i++) {
                if (ref.copies(method)) {
                    if (actual[i] != x[i]) {
                        fail("%s %s [%d]: a copy changed 0x%X into 0x%X", path, this, i, x[i], actual[i]);
                    }
                } else if (!type.isFloatingPoint()) {
                    long expected = ref.expectedInteger(method, x[i], y[i]);
                    if (actual[i] != expected) {
                        fail("%s %s [%d]: x=0x%X y=0x%X gave 0x%X, expected 0x%X", path, this, i, x[i], y[i],
                                actual[i], expected);
                    }
                } else {
                    double expected = ref.expectedFloat(method, x[i], y[i]);
                    double got = ref.decode(actual[i]);
                    boolean ok = Double.compare(expected, got) == 0
                            && !(fp8 && Double.isNaN(expected) && actual[i] != Fp8.NAN_CODE);
                    if (!ok) {
                        fail("%s %s [%d]: x=%s y=%s gave %s (0x%X), expected %s", path, this, i, ref.decode(x[i]),
                                ref.decode(y[i]), got, actual[i], expected);
                    }
                }
            }
        }

        void checkSame(long[] vector, long[] scalar) {
            for (int i = 0; i < vector.length; i++) {
                boolean bothNan = type.isFloatingPoint() && Double.isNaN(ref.decode(vector[i]))
                        && Double.isNaN(ref.decode(scalar[i]));
                if (vector[i] != scalar[i] && !bothNan) {
                    fail("%s [%d]: vector gave 0x%X, scalar 0x%X", this, i, vector[i], scalar[i]);
                }
            }
        }

        @Override
        public String toString() {
            return type + " " + method + " count=" + x.length + " " + layout + " alias=" + alias;
        }
    }
}
