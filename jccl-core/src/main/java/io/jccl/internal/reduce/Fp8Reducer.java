package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * fp8 (e4m3 and e5m2) kernels: both operands are widened to fp32 (exact), the op runs in fp32 exactly as
 * {@link F32Reducer}'s does, and the result is rounded once to the fp8 format (nearest even, saturating to the
 * largest finite value, NaN to {@code 0x7F}: see {@link Fp8}). Vector loops widen {@link Simd#QUARTER} bytes into
 * fp32 lanes. Owned by: whichever thread runs the primitive (immutable). Mirrors: NCCL's
 * {@code FuncSum<__nv_fp8_e4m3>} / {@code <__nv_fp8_e5m2>} and friends.
 */
final class Fp8Reducer extends ReducerBase {
    private static final VectorSpecies<Byte> S = Simd.QUARTER;
    private static final int LANES = S == null ? 1 : S.length();
    private static final ValueLayout.OfByte E = ValueLayout.JAVA_BYTE;

    private final Fp8 fmt;
    private final float scalar;
    private final float divisor;

    Fp8Reducer(DataType type, RedOp op, int nRanks, boolean vector) {
        super(type, op, nRanks, vector && S != null);
        this.fmt = type == DataType.FLOAT8_E4M3 ? Fp8.E4M3 : Fp8.E5M2;
        this.scalar = (float) op.scalar();
        this.divisor = nRanks;
    }

    private FloatVector load(MemorySegment s, long off) {
        return fmt.widen(ByteVector.fromMemorySegment(S, s, off, Simd.ORDER));
    }

    private void store(FloatVector v, MemorySegment s, long off) {
        fmt.narrow(v).intoMemorySegment(s, off, Simd.ORDER);
    }

    private float get(MemorySegment s, long off) {
        return fmt.widen(s.get(E, off));
    }

    private void put(MemorySegment s, long off, float v) {
        s.set(E, off, fmt.narrow(v));
    }

    private long bound(long n) {
        return vector ? S.loopBound(n) : 0;
    }

    @Override
    void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i;
            store(load(a, ao + o).add(load(b, bo + o)), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i;
            put(d, dOff + o, get(a, ao + o) + get(b, bo + o));
        }
    }

    @Override
    void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i;
            store(load(a, ao + o).mul(load(b, bo + o)), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i;
            put(d, dOff + o, get(a, ao + o) * get(b, bo + o));
        }
    }

    @Override
    void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i;
            store(load(a, ao + o).min(load(b, bo + o)), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i;
            put(d, dOff + o, Math.min(get(a, ao + o), get(b, bo + o)));
        }
    }

    @Override
    void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i;
            store(load(a, ao + o).max(load(b, bo + o)), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i;
            put(d, dOff + o, Math.max(get(a, ao + o), get(b, bo + o)));
        }
    }

    @Override
    void mulAdd(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        float s = scalar;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i;
            store(load(a, ao + o).add(load(b, bo + o).mul(s)), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i;
            float product = s * get(b, bo + o);
            put(d, dOff + o, get(a, ao + o) + product);
        }
    }

    @Override
    void mul(MemorySegment x, long xo, MemorySegment d, long dOff, long n) {
        float s = scalar;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i;
            store(load(x, xo + o).mul(s), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i;
            put(d, dOff + o, s * get(x, xo + o));
        }
    }

    @Override
    void sumDiv(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        float q = divisor;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i;
            store(load(a, ao + o).add(load(b, bo + o)).div(q), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i;
            float sum = get(a, ao + o) + get(b, bo + o);
            put(d, dOff + o, sum / q);
        }
    }

    @Override
    void div(MemorySegment x, long xo, MemorySegment d, long dOff, long n) {
        float q = divisor;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i;
            store(load(x, xo + o).div(q), d, dOff + o);
        }
        for (; i < n; i++) {
            long o = i;
            put(d, dOff + o, get(x, xo + o) / q);
        }
    }
}
