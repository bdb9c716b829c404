package io.jccl.cuda.bench;

import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.internal.HostElements;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

/**
 * Input patterns and the expected allReduce results for the benchmark's checks: non-zero small integers whose
 * sums, products, minima and maxima are exact in fp32, fp16 and bf16 for up to 8 ranks, so every element of every
 * output can be compared exactly. Results are read from the device into host memory and compared one by one.
 *
 * <p>Thread: stateless. Mirrors nccl-tests' data initialisation and #wrong column.
 */
final class BenchData {
    private BenchData() {
    }

    /** Input element {@code i} of rank {@code rank}. */
    static double input(RedOp op, int rank, long i) {
        return switch (op.kind()) {
            case PROD -> ((i + rank) % 3 == 0) ? 2 : 1;
            case MIN, MAX -> ((i * 7 + rank * 5) % 29) - 14;
            default -> (i % 13) + 1 + rank;
        };
    }

    /** The exact reduction of element {@code i} over {@code nRanks} ranks. */
    static double expected(RedOp op, int nRanks, long i) {
        double acc = input(op, 0, i);
        for (int r = 1; r < nRanks; r++) {
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

    /** Fills {@code count} elements of {@code host} with rank {@code rank}'s input. */
    static void fill(MemorySegment host, DataType type, RedOp op, int rank, long count) {
        if (type == DataType.FLOAT32) {
            for (long i = 0; i < count; i++) {
                host.setAtIndex(JAVA_FLOAT, i, (float) input(op, rank, i));
            }
            return;
        }
        for (long i = 0; i < count; i++) {
            HostElements.set(type, host, i, input(op, rank, i));
        }
    }

    /** Number of the first {@code count} elements of {@code host} that differ from the expected result. */
    static long countWrong(MemorySegment host, DataType type, RedOp op, int nRanks, long count) {
        long wrong = 0;
        if (type == DataType.FLOAT32) {
            for (long i = 0; i < count; i++) {
                if (host.getAtIndex(JAVA_FLOAT, i) != (float) expected(op, nRanks, i)) {
                    wrong++;
                }
            }
            return wrong;
        }
        for (long i = 0; i < count; i++) {
            if (HostElements.get(type, host, i) != expected(op, nRanks, i)) {
                wrong++;
            }
        }
        return wrong;
    }
}
