package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * int32 and uint32 kernels. SUM, PROD and PRE_MUL_SUM wrap around (two's complement, the same bits for signed and
 * unsigned; the scalar is taken modulo 2^32). MIN/MAX compare signed or unsigned by type. AVG's division truncates
 * toward zero (signed) or is an unsigned division (uint32); it runs as a scalar pass after the vector sum.
 * Owned by: whichever thread runs the primitive (immutable). Mirrors: NCCL's integer {@code FuncSum},
 * {@code FuncProd}, {@code FuncMinMax}, {@code FuncPreMulSum}, {@code FuncSumPostDiv}.
 */
final class I32Reducer extends ReducerBase {
    private static final VectorSpecies<Integer> S = Simd.I32;
    private static final int LANES = S.length();
    private static final ValueLayout.OfInt E = ValueLayout.JAVA_INT_UNALIGNED;

    private final boolean unsigned;
    private final int scalar;

    I32Reducer(DataType type, RedOp op, int nRanks, boolean vector) {
        super(type, op, nRanks, vector);
        this.unsigned = type.isUnsigned();
        this.scalar = (int) Reducers.integralScalar(op);
    }

    private static IntVector load(MemorySegment s, long off) {
        return IntVector.fromMemorySegment(S, s, off, Simd.ORDER);
    }

    private long bound(long n) {
        return vector ? S.loopBound(n) : 0;
    }

    @Override
    void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 2;
            load(a, ao + o).add(load(b, bo + o)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 2;
            d.set(E, dOff + o, a.get(E, ao + o) + b.get(E, bo + o));
        }
    }

    @Override
    void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 2;
            load(a, ao + o).mul(load(b, bo + o)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 2;
            d.set(E, dOff + o, a.get(E, ao + o) * b.get(E, bo + o));
        }
    }

    @Override
    void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        if (unsigned) {
            minUnsigned(a, ao, b, bo, d, dOff, n);
            return;
        }
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 2;
            load(a, ao + o).min(load(b, bo + o)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 2;
            d.set(E, dOff + o, Math.min(a.get(E, ao + o), b.get(E, bo + o)));
        }
    }

    private void minUnsigned(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 2;
            load(a, ao + o).lanewise(VectorOperators.UMIN, load(b, bo + o)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 2;
            int x = a.get(E, ao + o);
            int y = b.get(E, bo + o);
            d.set(E, dOff + o, Integer.compareUnsigned(x, y) <= 0 ? x : y);
        }
    }

    @Override
    void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        if (unsigned) {
            maxUnsigned(a, ao, b, bo, d, dOff, n);
            return;
        }
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 2;
            load(a, ao + o).max(load(b, bo + o)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 2;
            d.set(E, dOff + o, Math.max(a.get(E, ao + o), b.get(E, bo + o)));
        }
    }

    private void maxUnsigned(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 2;
            load(a, ao + o).lanewise(VectorOperators.UMAX, load(b, bo + o)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 2;
            int x = a.get(E, ao + o);
            int y = b.get(E, bo + o);
            d.set(E, dOff + o, Integer.compareUnsigned(x, y) >= 0 ? x : y);
        }
    }

    @Override
    void mulAdd(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        int s = scalar;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 2;
            load(a, ao + o).add(load(b, bo + o).mul(s)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 2;
            d.set(E, dOff + o, a.get(E, ao + o) + s * b.get(E, bo + o));
        }
    }

    @Override
    void mul(MemorySegment x, long xo, MemorySegment d, long dOff, long n) {
        int s = scalar;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 2;
            load(x, xo + o).mul(s).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 2;
            d.set(E, dOff + o, s * x.get(E, xo + o));
        }
    }

    @Override
    void sumDiv(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        sum(a, ao, b, bo, d, dOff, n);
        div(d, dOff, d, dOff, n);
    }

    @Override
    void div(MemorySegment x, long xo, MemorySegment d, long dOff, long n) {
        int q = nRanks;
        if (unsigned) {
            for (long i = 0; i < n; i++) {
                long o = i << 2;
                d.set(E, dOff + o, Integer.divideUnsigned(x.get(E, xo + o), q));
            }
        } else {
            for (long i = 0; i < n; i++) {
                long o = i << 2;
                d.set(E, dOff + o, x.get(E, xo + o) / q);
            }
        }
    }
}
