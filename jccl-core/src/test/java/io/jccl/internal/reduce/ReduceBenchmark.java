package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * Throughput of the reduction kernels against a plain {@link MemorySegment#copy} of the same size (not a test: run
 * {@code main}). GB/s counts bytes of one operand per second (what nccl-tests' algbw counts); a combine touches
 * three such buffers, a copy two. Best of several timed rounds after warm-up.
 * <pre>
 * mvn -q -pl jccl-core test-compile
 * java --add-modules jdk.incubator.vector -cp jccl-core/target/classes:jccl-core/target/test-classes \
 *      io.jccl.internal.reduce.ReduceBenchmark [all]
 * </pre>
 */
public final class ReduceBenchmark {
    private static final long ROUND_NS = 50_000_000L;

    private ReduceBenchmark() {
    }

    public static void main(String[] args) {
        System.out.println("vector shapes: " + Simd.describe() + ", " + Runtime.getRuntime().availableProcessors()
                + " cpus");
        try (Arena arena = Arena.ofShared()) {
            for (long size : new long[]{1L << 20, 64L << 20}) {
                fp32Sum(arena, size);
            }
            if (args.length > 0 && args[0].equals("all")) {
                allTypes(arena, 1L << 20);
            }
        }
    }

    private static void fp32Sum(Arena arena, long size) {
        MemorySegment a = filled(arena, size, 1);
        MemorySegment b = filled(arena, size, 2);
        MemorySegment d = filled(arena, size, 3);
        long n = size / 4;
        Reducer vector = Reducers.create(DataType.FLOAT32, RedOp.SUM, 2, true);
        Reducer scalar = Reducers.create(DataType.FLOAT32, RedOp.SUM, 2, false);
        double copy = best(size, () -> MemorySegment.copy(a, 0, d, 0, size));
        double outOfPlace = best(size, () -> vector.combine(a, 0, b, 0, d, 0, n));
        double inPlace = best(size, () -> vector.accumulate(d, 0, b, 0, d, 0, n, false));
        double scalarOut = best(size, () -> scalar.combine(a, 0, b, 0, d, 0, n));
        System.out.printf(Locale.ROOT, "fp32 sum %6d KiB: copy %6.1f GB/s | vector a+b->d %6.1f GB/s (%.2fx copy),"
                        + " d+=b %6.1f GB/s (%.2fx) | scalar a+b->d %6.1f GB/s%n", size >> 10, copy, outOfPlace,
                outOfPlace / copy, inPlace, inPlace / copy, scalarOut);
    }

    private static void allTypes(Arena arena, long size) {
        MemorySegment a = filled(arena, size, 1);
        MemorySegment b = filled(arena, size, 2);
        MemorySegment d = filled(arena, size, 3);
        System.out.println("combine a+b->d at " + (size >> 10) + " KiB, GB/s of one operand: vector / scalar");
        RedOp[] ops = {RedOp.SUM, RedOp.PROD, RedOp.MIN, RedOp.MAX, RedOp.AVG, RedOp.preMulSum(3)};
        for (DataType type : DataType.values()) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-12s", type));
            long n = size / type.sizeBytes();
            for (RedOp op : ops) {
                Reducer v = Reducers.create(type, op, 4, true);
                Reducer s = Reducers.create(type, op, 4, false);
                double gv;
                double gs;
                if (op.kind() == RedOp.Kind.AVG || op.kind() == RedOp.Kind.PRE_MUL_SUM) {
                    gv = best(size, () -> v.accumulate(a, 0, b, 0, d, 0, n, true));
                    gs = best(size, () -> s.accumulate(a, 0, b, 0, d, 0, n, true));
                } else {
                    gv = best(size, () -> v.combine(a, 0, b, 0, d, 0, n));
                    gs = best(size, () -> s.combine(a, 0, b, 0, d, 0, n));
                }
                line.append(String.format(Locale.ROOT, " %s %5.1f/%4.1f", op.kind().ncclName(), gv, gs));
            }
            System.out.println(line);
        }
    }

    private static MemorySegment filled(Arena arena, long size, int seed) {
        MemorySegment s = arena.allocate(size, 64);
        for (long i = 0; i < size; i += 4) {
            s.set(java.lang.foreign.ValueLayout.JAVA_FLOAT, i, (float) ((i * 31 + seed) % 1000) / 7f);
        }
        return s;
    }

    /** Best GB/s over five rounds of at least {@link #ROUND_NS} each, after a warm-up of three rounds' length. */
    private static double best(long size, Runnable call) {
        long t0 = System.nanoTime();
        while (System.nanoTime() - t0 < 3 * ROUND_NS) {
            call.run();
        }
        double best = 0;
        for (int round = 0; round < 5; round++) {
            long calls = 0;
            long start = System.nanoTime();
            long elapsed;
            do {
                call.run();
                calls++;
                elapsed = System.nanoTime() - start;
            } while (elapsed < ROUND_NS);
            best = Math.max(best, (double) size * calls / elapsed);
        }
        return best;
    }
}
