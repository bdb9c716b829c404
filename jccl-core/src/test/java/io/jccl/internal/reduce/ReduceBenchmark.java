package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

public final class ReduceBenchmark {
    public static void main(String[] args) {
        System.out.println(Simd.describe());
        try (Arena arena = Arena.ofConfined()) {
            for (long size : new long[]{1 << 20, 64L << 20}) {
                MemorySegment a = arena.allocate(size, 64), b = arena.allocate(size, 64), d = arena.allocate(size, 64);
                a.fill((byte) 1); b.fill((byte) 2); d.fill((byte) 0);
                long count = size / 4;
                Reducer v = Reducers.create(DataType.FLOAT32, RedOp.SUM, 2, true);
                Reducer s = Reducers.create(DataType.FLOAT32, RedOp.SUM, 2, false);
                for (int round = 0; round < 3; round++) {
                    int iters = (int) Math.max(5, (2L << 30) / size);
                    long t0 = System.nanoTime();
                    for (int i = 0; i < iters; i++) MemorySegment.copy(a, 0, d, 0, size);
                    long t1 = System.nanoTime();
                    for (int i = 0; i < iters; i++) v.combine(a, 0, b, 0, d, 0, count);
                    long t2 = System.nanoTime();
                    for (int i = 0; i < iters; i++) s.combine(a, 0, b, 0, d, 0, count);
                    long t3 = System.nanoTime();
                    System.out.printf("%d KiB copy %.1f GB/s  vsum %.1f GB/s  ssum %.1f GB/s (bytes of dst per s)%n", size >> 10,
                            (double) size * iters / (t1 - t0), (double) size * iters / (t2 - t1), (double) size * iters / (t3 - t2));
                }
            }
        }
    }
}
