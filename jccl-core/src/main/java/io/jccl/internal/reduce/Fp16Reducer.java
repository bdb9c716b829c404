package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * fp16 (IEEE binary16) kernels: both operands are widened to fp32 (exact), the op runs in fp32 exactly as
 * {@link F32Reducer}'s does, and the result is rounded once to fp16 (nearest even, overflow to infinity, see
 * {@link Fp16}). Vector loops widen {@link Simd#HALF} shorts into fp32 lanes. Owned by: whichever thread runs the
 * primitive (immutable). Mirrors: NCCL's {@code FuncSum<half>} and friends; for one add, multiply, min or max,
 * computing in fp32 and rounding once gives the same bits as native fp16 arithmetic (fp32 has more than 2p+2 bits).
 */
final class Fp16Reducer extends ReducerBase {
    private static final VectorSpecies<Short> S = Simd.HALF;
    private static final int LANES = S == null ? 1 : S.length();
    private static final ValueLayout.OfShort E = ValueLayout.JAVA_SHORT_UNALIGNED;

    private final float scalar;
    private final float divisor;

    Fp16Reducer(RedOp op, int nRanks, boolean vector) {
        super(DataType.FLOAT16, op, nRanks, vector && S != null);
        this.scalar = (float) op.scalar();
        this.divisor = nRanks;
    }

    private static FloatVector load(MemorySegment s, long off) {
        return Fp16.widen(ShortVector.fromMemorySegment(S, s, off, Simd.ORDER));
    }

    private static void store(FloatVector v, MemorySegment s, long off) {
        Fp16.narrow(v).intoMemorySegment(s, off, Simd.ORDER);
    }

    private static float get(MemorySegment s, long off) {
        return Fp16.widen(s.get(E, off));
    }

    private static void put(MemorySegment s, long off, float v) {
        s.set(E, off, Fp16.narrow(v));
    }

    private long bound(long n) {
        return vector ? S.loopBound(n) : 0;
    }

    @Override
    void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 1;
            store(load(a, ao + o).add(load(b, bo + o)), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i << 1;
            put(d, dOff + o, get(a, ao + o) + get(b, bo + o));
        }
    }

    @Override
    void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 1;
            store(load(a, ao + o).mul(load(b, bo + o)), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i << 1;
            put(d, dOff + o, get(a, ao + o) * get(b, bo + o));
        }
    }

    @Override
    void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 1;
            store(load(a, ao + o).min(load(b, bo + o)), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i << 1;
            put(d, dOff + o, Math.min(get(a, ao + o), get(b, bo + o)));
        }
    }

    @Override
    void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 1;
            store(load(a, ao + o).max(load(b, bo + o)), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i << 1;
            put(d, dOff + o, Math.max(get(a, ao + o), get(b, bo + o)));
        }
    }

    @Override
    void mulAdd(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        float s = scalar;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 1;
            store(load(a, ao + o).add(load(b, bo + o).mul(s)), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i << 1;
            float product = s * get(b, bo + o);
            put(d, dOff + o, get(a, ao + o) + product);
        }
    }

    @Override
    void mul(MemorySegment x, long xo, MemorySegment d, long dOff, long n) {
        float s = scalar;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 1;
            store(load(x, xo + o).mul(s), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i << 1;
            put(d, dOff + o, s * get(x, xo + o));
        }
    }

    @Override
    void sumDiv(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        float q = divisor;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 1;
            store(load(a, ao + o).add(load(b, bo + o)).div(q), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i << 1;
            float sum = get(a, ao + o) + get(b, bo + o);
            put(d, dOff + o, sum / q);
        }
    }

    @Override
    void div(MemorySegment x, long xo, MemorySegment d, long dOff, long n) {
        float q = divisor;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 1;
            store(load(x, xo + o).div(q), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i << 1;
            put(d, dOff + o, get(x, xo + o) / q);
        }
    }
}
