package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * Throughput of the reduction kernels against a plain {@link MemorySegment#copy} of the same size (not a test: run
 * {@code main}). GB/s counts bytes of one operand per second (what nccl-tests' algbw counts); a combine touches
 * three such buffers, a copy two. Best of several timed rounds after warm-up (which waits, up to 10 s, for the JIT to
 * compile the vector kernel: see {@link Warmup}). On a shared machine compare only within one run.
 * <pre>
 * mvn -q -pl jccl-core test-compile
 * java --add-modules jdk.incubator.vector -cp jccl-core/target/classes:jccl-core/target/test-classes \
 *      io.jccl.internal.reduce.ReduceBenchmark [all]
 * </pre>
 */
public final class ReduceBenchmark {
    private static final long ROUND_NS = 50_000_000L;
    private static final long MAX_WARMUP_NS = 10_000_000_000L;
    private static final int SUM = ReducerBase.Kernel.SUM.ordinal();
    private static final java.util.List<Long> warmupNs = new java.util.ArrayList<>();

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
            System.out.printf(Locale.ROOT, "warm-up until the vector kernel was compiled: %d kernels, median %.2f s,"
                    + " max %.2f s%n", warmupNs.size(), median(warmupNs) / 1e9,
                    warmupNs.stream().mapToLong(Long::longValue).max().orElse(0) / 1e9);
        }
    }

    private static void fp32Sum(Arena arena, long size) {
        MemorySegment a = filled(arena, size, 1);
        MemorySegment b = filled(arena, size, 2);
        MemorySegment d = filled(arena, size, 3);
        long n = size / 4;
        Reducer vector = Reducers.create(DataType.FLOAT32, RedOp.SUM, 2, true);
        Reducer scalar = Reducers.create(DataType.FLOAT32, RedOp.SUM, 2, false);
        double copy = best(size, () -> MemorySegment.copy(a, 0, d, 0, size), null, 0);
        double outOfPlace = best(size, () -> vector.combine(a, 0, b, 0, d, 0, n), DataType.FLOAT32, SUM);
        double inPlace = best(size, () -> vector.accumulate(d, 0, b, 0, d, 0, n, false), DataType.FLOAT32, SUM);
        double scalarOut = best(size, () -> scalar.combine(a, 0, b, 0, d, 0, n), null, 0);
        System.out.printf(Locale.ROOT, "fp32 sum %6d KiB: copy %6.1f GB/s | vector a+b->d %6.1f GB/s (%.2fx copy),"
                        + " d+=b %6.1f GB/s (%.2fx) | scalar a+b->d %6.1f GB/s%n", size >> 10, copy, outOfPlace,
                outOfPlace / copy, inPlace, inPlace / copy, scalarOut);
    }

    private static void allTypes(Arena arena, long size) {
        MemorySegment a = filled(arena, size, 1);
        MemorySegment b = filled(arena, size, 2);
        MemorySegment d = filled(arena, size, 3);
        System.out.println("accumulate(last) a+b->d at " + (size >> 10) + " KiB, GB/s of one operand: vector / scalar"
                + " (avg: (a+b)/n, mulsum: a+3b; * = vector kernel still cold after 10 s)");
        RedOp[] ops = {RedOp.SUM, RedOp.PROD, RedOp.MIN, RedOp.MAX, RedOp.AVG, RedOp.preMulSum(3)};
        for (DataType type : DataType.values()) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-12s", type));
            long n = size / type.sizeBytes();
            for (RedOp op : ops) {
                Reducer v = Reducers.create(type, op, 4, true);
                Reducer s = Reducers.create(type, op, 4, false);
                int slot = switch (op.kind()) {
                    case AVG -> ReducerBase.Kernel.SUM_DIV.ordinal();
                    case PRE_MUL_SUM -> ReducerBase.Kernel.MUL_ADD.ordinal();
                    case PROD -> ReducerBase.Kernel.PROD.ordinal();
                    case MIN -> ReducerBase.Kernel.MIN.ordinal();
                    case MAX -> ReducerBase.Kernel.MAX.ordinal();
                    case SUM -> SUM;
                };
                Runnable vectorCall = () -> v.accumulate(a, 0, b, 0, d, 0, n, true);
                Runnable scalarCall = () -> s.accumulate(a, 0, b, 0, d, 0, n, true);
                double gv = best(size, vectorCall, type, slot);
                double gs = best(size, scalarCall, null, 0);
                line.append(String.format(Locale.ROOT, " %s %5.1f/%4.1f", op.kind().ncclName(), gv, gs));
            }
            System.out.println(line);
        }
    }

    private static double median(java.util.List<Long> values) {
        long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
        return sorted.length == 0 ? 0 : sorted[sorted.length / 2];
    }

    private static MemorySegment filled(Arena arena, long size, int seed) {
        MemorySegment s = arena.allocate(size, 64);
        for (long i = 0; i < size; i += 4) {
            s.set(java.lang.foreign.ValueLayout.JAVA_FLOAT, i, (float) ((i * 31 + seed) % 1000) / 7f);
        }
        return s;
    }

    /**
     * Best GB/s over five rounds of at least {@link #ROUND_NS} each, after a warm-up of three rounds' length that
     * continues (up to {@link #MAX_WARMUP_NS}) until {@link Warmup} reports the vector kernel compiled; a kernel
     * still cold after that is reported with a '*'.
     */
    private static double best(long size, Runnable call, DataType type, int slot) {
        long t0 = System.nanoTime();
        long elapsed;
        do {
            call.run();
            elapsed = System.nanoTime() - t0;
        } while (elapsed < 3 * ROUND_NS || (type != null && !Warmup.of(type).isHot(slot) && elapsed < MAX_WARMUP_NS));
        if (type != null) {
            if (Warmup.of(type).isHot(slot)) {
                warmupNs.add(elapsed);
            } else {
                System.out.print("*");
            }
        }
        double best = 0;
        for (int round = 0; round < 5; round++) {
            long calls = 0;
            long start = System.nanoTime();
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
