package io.jccl.tools.perf;

import java.util.ArrayList;
import java.util.List;

/**
 * The message sizes a perf run visits, as nccl-tests does: from {@code minBytes} to {@code maxBytes} inclusive,
 * multiplying by {@code stepFactor} when it is above 1, else adding {@code stepBytes}. The warm-up walks the same
 * range doubling each time, whatever the step. A size of 0 is followed by 1 (factor) so the sweep always advances.
 * A value computed once per run; mirrors nccl-tests' size loop in {@code TimeTest}.
 *
 * @param minBytes   first size
 * @param maxBytes   last size (inclusive upper bound)
 * @param stepBytes  additive step, used when {@code stepFactor <= 1}
 * @param stepFactor multiplicative step when above 1
 */
public record SizeSweep(long minBytes, long maxBytes, long stepBytes, long stepFactor) {

    public SizeSweep {
        if (minBytes < 0 || maxBytes < 0) {
            throw new IllegalArgumentException("sizes must not be negative");
        }
        if (minBytes > maxBytes) {
            throw new IllegalArgumentException("invalid sizes for 'minbytes' and 'maxbytes': " + minBytes + " > "
                    + maxBytes);
        }
        if (stepFactor <= 1 && stepBytes <= 0) {
            throw new IllegalArgumentException("the step must be positive: give -i BYTES > 0 or -f FACTOR > 1");
        }
    }

    /** True when sizes grow by a factor (header: {@code step: 2(factor)}), false when by bytes. */
    public boolean multiplicative() {
        return stepFactor > 1;
    }

    /** The step as nccl-tests prints it: the factor or the byte increment. */
    public long step() {
        return multiplicative() ? stepFactor : stepBytes;
    }

    /** The measured sizes, in order. */
    public List<Long> sizes() {
        List<Long> out = new ArrayList<>();
        long size = minBytes;
        while (size <= maxBytes) {
            out.add(size);
            long next = multiplicative() ? (size == 0 ? 1 : multiplyOrMax(size, stepFactor)) : addOrMax(size,
                    stepBytes);
            if (next <= size) {
                break;
            }
            size = next;
        }
        return out;
    }

    /** The warm-up sizes: {@code minBytes} doubling up to {@code maxBytes}. */
    public List<Long> warmupSizes() {
        List<Long> out = new ArrayList<>();
        long size = minBytes;
        while (size <= maxBytes) {
            out.add(size);
            long next = size == 0 ? 1 : multiplyOrMax(size, 2);
            if (next <= size) {
                break;
            }
            size = next;
        }
        return out;
    }

    private static long multiplyOrMax(long a, long b) {
        return a > Long.MAX_VALUE / b ? Long.MAX_VALUE : a * b;
    }

    private static long addOrMax(long a, long b) {
        return a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b;
    }
}
