package io.jccl.internal.reduce;

import io.jccl.DataType;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Keeps each vector kernel off large inputs until the JIT has compiled it. Before C2 compiles them, Vector API loops
 * run with every vector boxed (in the interpreter or C1): measured at 3.5-40 µs per 64 elements, a thousand times
 * slower than compiled, so a first 1 MiB bf16 call took about 3 s against 0.7 s for the scalar loop. While a kernel
 * is cold, callers process their range in slices of {@link #SLICE_ELEMENTS}: each slice times the vector kernel on
 * its first {@link #PROBE_ELEMENTS} elements (a probe, which also drives the JIT's invocation counters) and does the
 * rest with the scalar loop. {@link #STREAK} consecutive probes under {@link #FAST_PROBE_NS} (compiled code takes
 * well under 200 ns) mark the kernel hot for good. Both loops give the same bits, so this only moves time.
 *
 * <p>One instance per {@link DataType}, with a slot per kernel (the six binary kernels, then scalar·x and x/n).
 * Owned by: all threads; slots are read and written with opaque access and updated without locks: a lost update or
 * a late-seen flag only costs a few extra probes. Mirrors: nothing in NCCL (CUDA kernels are compiled ahead of time).
 */
final class Warmup {
    static final int PROBE_ELEMENTS = 64;
    static final long SLICE_ELEMENTS = 8192;
    static final long FAST_PROBE_NS = 1_000;
    static final int STREAK = 3;
    /** Slots: {@code Kernel.ordinal()} for binary kernels, then {@link #MUL_SLOT} and {@link #DIV_SLOT}. */
    static final int MUL_SLOT = ReducerBase.Kernel.values().length;
    static final int DIV_SLOT = MUL_SLOT + 1;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(int[].class);
    private static final Warmup[] BY_TYPE = new Warmup[DataType.values().length];

    static {
        for (DataType t : DataType.values()) {
            BY_TYPE[t.ordinal()] = new Warmup();
        }
    }

    /** Consecutive fast probes per slot; {@link #STREAK} or more means hot. */
    private final int[] fastProbes = new int[DIV_SLOT + 1];

    private Warmup() {
    }

    static Warmup of(DataType type) {
        return BY_TYPE[type.ordinal()];
    }

    boolean isHot(int slot) {
        return (int) SLOT.getOpaque(fastProbes, slot) >= STREAK;
    }

    /** Records a probe that did {@code elements} elements in {@code ns}. */
    void record(int slot, long ns, long elements) {
        if (elements <= 0) {
            return;
        }
        int streak = (int) SLOT.getOpaque(fastProbes, slot);
        if (streak < STREAK) {
            SLOT.setOpaque(fastProbes, slot, ns <= FAST_PROBE_NS ? streak + 1 : 0);
        }
    }

    /** Test hook: forget what was learnt for {@code type}. */
    static void reset(DataType type) {
        Warmup w = of(type);
        for (int i = 0; i < w.fastProbes.length; i++) {
            SLOT.setOpaque(w.fastProbes, i, 0);
        }
    }

    /** Test hook: mark every kernel of {@code type} hot. */
    static void markHot(DataType type) {
        Warmup w = of(type);
        for (int i = 0; i < w.fastProbes.length; i++) {
            SLOT.setOpaque(w.fastProbes, i, STREAK);
        }
    }
}
