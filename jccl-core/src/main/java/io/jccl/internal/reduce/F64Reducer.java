package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * fp64 kernels: IEEE double-precision arithmetic, each element rounded once per operation (no fused multiply-add,
 * so vector and scalar loops agree bit for bit). MIN/MAX follow {@link Math#min(double, double)}: NaN wins, and
 * -0.0 is below +0.0. PRE_MUL_SUM uses the scalar as given; AVG divides by nRanks in fp64.
 * Owned by: whichever thread runs the primitive (immutable). Mirrors: NCCL's {@code FuncSum<double>} and friends.
 */
final class F64Reducer extends ReducerBase {
    private static final VectorSpecies<Double> S = Simd.F64;
    private static final int LANES = S.length();
    private static final ValueLayout.OfDouble E = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private final double scalar;
    private final double divisor;

    F64Reducer(RedOp op, int nRanks, boolean vector) {
        super(DataType.FLOAT64, op, nRanks, vector);
        this.scalar = op.scalar();
        this.divisor = nRanks;
    }

    private static DoubleVector load(MemorySegment s, long off) {
        return DoubleVector.fromMemorySegment(S, s, off, Simd.ORDER);
    }

    private long bound(long n) {
        return vector ? S.loopBound(n) : 0;
    }

    @Override
    void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 3;
            load(a, ao + o).add(load(b, bo + o)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 3;
            d.set(E, dOff + o, a.get(E, ao + o) + b.get(E, bo + o));
        }
    }

    @Override
    void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 3;
            load(a, ao + o).mul(load(b, bo + o)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 3;
            d.set(E, dOff + o, a.get(E, ao + o) * b.get(E, bo + o));
        }
    }

    @Override
    void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 3;
            load(a, ao + o).min(load(b, bo + o)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 3;
            d.set(E, dOff + o, Math.min(a.get(E, ao + o), b.get(E, bo + o)));
        }
    }

    @Override
    void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 3;
            load(a, ao + o).max(load(b, bo + o)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 3;
            d.set(E, dOff + o, Math.max(a.get(E, ao + o), b.get(E, bo + o)));
        }
    }

    @Override
    void mulAdd(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        double s = scalar;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 3;
            load(a, ao + o).add(load(b, bo + o).mul(s)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 3;
            double product = s * b.get(E, bo + o);
            d.set(E, dOff + o, a.get(E, ao + o) + product);
        }
    }

    @Override
    void mul(MemorySegment x, long xo, MemorySegment d, long dOff, long n) {
        double s = scalar;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 3;
            load(x, xo + o).mul(s).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 3;
            d.set(E, dOff + o, s * x.get(E, xo + o));
        }
    }

    @Override
    void sumDiv(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        double q = divisor;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 3;
            load(a, ao + o).add(load(b, bo + o)).div(q).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 3;
            double sum = a.get(E, ao + o) + b.get(E, bo + o);
            d.set(E, dOff + o, sum / q);
        }
    }

    @Override
    void div(MemorySegment x, long xo, MemorySegment d, long dOff, long n) {
        double q = divisor;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            long o = i << 3;
            load(x, xo + o).div(q).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
        for (; i < n; i++) {
            long o = i << 3;
            d.set(E, dOff + o, x.get(E, xo + o) / q);
        }
    }
}
