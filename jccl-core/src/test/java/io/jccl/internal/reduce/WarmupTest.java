package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/** The warm-up gate: its streak rule, and identical results whether a kernel is cold (sliced) or hot. */
class WarmupTest {

    @AfterEach
    void leaveTypesCold() {
        for (DataType t : DataType.values()) {
            Warmup.reset(t);
        }
    }

    @Test
    void aStreakOfFastProbesMakesASlotHotAndASlowProbeRestartsIt() {
        DataType t = DataType.UINT32;
        Warmup.reset(t);
        Warmup w = Warmup.of(t);
        int slot = ReducerBase.Kernel.PROD.ordinal();
        w.record(slot, 10, 64);
        w.record(slot, 10, 64);
        w.record(slot, Warmup.FAST_PROBE_NS + 1, 64);        // slow: start again
        w.record(slot, 10, 0);                               // nothing done: ignored
        for (int i = 0; i < Warmup.STREAK - 1; i++) {
            w.record(slot, 10, 64);
            assertThat(w.isHot(slot)).isFalse();
        }
        w.record(slot, Warmup.FAST_PROBE_NS, 64);
        assertThat(w.isHot(slot)).isTrue();
        w.record(slot, 1_000_000, 64);                       // hot stays hot
        assertThat(w.isHot(slot)).isTrue();
        assertThat(w.isHot(Warmup.MUL_SLOT)).isFalse();
        assertThat(Warmup.of(DataType.INT32).isHot(slot)).as("types are separate").isFalse();
    }

    /** A count spanning several slices, with a misaligned tail, cold then hot: the same bits each time. */
    @ParameterizedTest
    @EnumSource(DataType.class)
    void coldSlicedAndHotPathsGiveTheSameBits(DataType type) {
        long n = 2 * Warmup.SLICE_ELEMENTS + 65;    // last slice: a 64-element probe plus one scalar element
        int size = type.sizeBytes();
        Random rnd = new Random(type.ordinal());
        InputGenerator gen = new InputGenerator(type, rnd);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(n * size + 3).asSlice(3);
            MemorySegment b = arena.allocate(n * size + 1).asSlice(1);
            long[] x = gen.next((int) n);
            long[] y = gen.next((int) n);
            for (int i = 0; i < n; i++) {
                RawBits.put(a, (long) i * size, size, x[i]);
                RawBits.put(b, (long) i * size, size, y[i]);
            }
            for (RedOp op : new RedOp[]{RedOp.SUM, RedOp.MAX, RedOp.AVG, RedOp.preMulSum(-3)}) {
                ReducerBase scalar = Reducers.create(type, op, 3, false);
                ReducerBase vector = Reducers.create(type, op, 3, true);
                MemorySegment expected = arena.allocate(n * size);
                MemorySegment cold = arena.allocate(n * size);
                MemorySegment hot = arena.allocate(n * size);
                scalar.accumulate(a, 0, b, 0, expected, 0, n, true);
                Warmup.reset(type);
                vector.accumulate(a, 0, b, 0, cold, 0, n, true);
                Warmup.markHot(type);
                vector.accumulate(a, 0, b, 0, hot, 0, n, true);
                assertSame(type, op + " accumulate cold", expected, cold, n);
                assertSame(type, op + " accumulate hot", expected, hot, n);

                scalar.prepare(a, 0, expected, 0, n, true);
                Warmup.reset(type);
                vector.prepare(a, 0, cold, 0, n, true);
                Warmup.markHot(type);
                vector.prepare(a, 0, hot, 0, n, true);
                assertSame(type, op + " prepare cold", expected, cold, n);
                assertSame(type, op + " prepare hot", expected, hot, n);
            }
        }
    }

    private static void assertSame(DataType type, String what, MemorySegment expected, MemorySegment got, long n) {
        int size = type.sizeBytes();
        for (long i = 0; i < n; i++) {
            long e = RawBits.get(expected, i * size, size);
            long g = RawBits.get(got, i * size, size);
            boolean bothNan = type.isFloatingPoint() && Double.isNaN(type.getDouble(expected, i))
                    && Double.isNaN(type.getDouble(got, i));
            if (e != g && !bothNan) {
                fail("%s %s [%d]: expected 0x%X got 0x%X", type, what, i, e, g);
            }
        }
    }
}
