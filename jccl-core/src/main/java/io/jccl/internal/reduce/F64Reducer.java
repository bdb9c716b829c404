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

    @Override
    long binaryVector(Kernel k, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                      long n) {
        long end = S.loopBound(n);
        switch (k) {
            case SUM -> sumV(a, ao, b, bo, d, dOff, end);
            case PROD -> prodV(a, ao, b, bo, d, dOff, end);
            case MIN -> minV(a, ao, b, bo, d, dOff, end);
            case MAX -> maxV(a, ao, b, bo, d, dOff, end);
            case MUL_ADD -> mulAddV(a, ao, b, bo, d, dOff, end, scalar);
            case SUM_DIV -> sumDivV(a, ao, b, bo, d, dOff, end, divisor);
        }
        return end;
    }

    @Override
    void binaryScalar(Kernel k, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                      long from, long n) {
        switch (k) {
            case SUM -> sumS(a, ao, b, bo, d, dOff, from, n);
            case PROD -> prodS(a, ao, b, bo, d, dOff, from, n);
            case MIN -> minS(a, ao, b, bo, d, dOff, from, n);
            case MAX -> maxS(a, ao, b, bo, d, dOff, from, n);
            case MUL_ADD -> mulAddS(a, ao, b, bo, d, dOff, from, n, scalar);
            case SUM_DIV -> sumDivS(a, ao, b, bo, d, dOff, from, n, divisor);
        }
    }

    @Override
    long unaryVector(boolean divide, MemorySegment x, long xo, MemorySegment d, long dOff, long n) {
        long end = S.loopBound(n);
        if (divide) {
            divV(x, xo, d, dOff, end, divisor);
        } else {
            mulV(x, xo, d, dOff, end, scalar);
        }
        return end;
    }

    @Override
    void unaryScalar(boolean divide, MemorySegment x, long xo, MemorySegment d, long dOff, long from, long n) {
        if (divide) {
            divS(x, xo, d, dOff, from, n, divisor);
        } else {
            mulS(x, xo, d, dOff, from, n, scalar);
        }
    }

    private static void sumV(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long end) {
        for (long i = 0; i < end; i += LANES) {
            long o = i << 3;
            DoubleVector x = DoubleVector.fromMemorySegment(S, a, ao + o, Simd.ORDER);
            DoubleVector y = DoubleVector.fromMemorySegment(S, b, bo + o, Simd.ORDER);
            x.add(y).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void prodV(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                              long end) {
        for (long i = 0; i < end; i += LANES) {
            long o = i << 3;
            DoubleVector x = DoubleVector.fromMemorySegment(S, a, ao + o, Simd.ORDER);
            DoubleVector y = DoubleVector.fromMemorySegment(S, b, bo + o, Simd.ORDER);
            x.mul(y).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void minV(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long end) {
        for (long i = 0; i < end; i += LANES) {
            long o = i << 3;
            DoubleVector x = DoubleVector.fromMemorySegment(S, a, ao + o, Simd.ORDER);
            DoubleVector y = DoubleVector.fromMemorySegment(S, b, bo + o, Simd.ORDER);
            x.min(y).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void maxV(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long end) {
        for (long i = 0; i < end; i += LANES) {
            long o = i << 3;
            DoubleVector x = DoubleVector.fromMemorySegment(S, a, ao + o, Simd.ORDER);
            DoubleVector y = DoubleVector.fromMemorySegment(S, b, bo + o, Simd.ORDER);
            x.max(y).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void mulAddV(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                                long end, double s) {
        for (long i = 0; i < end; i += LANES) {
            long o = i << 3;
            DoubleVector x = DoubleVector.fromMemorySegment(S, a, ao + o, Simd.ORDER);
            DoubleVector y = DoubleVector.fromMemorySegment(S, b, bo + o, Simd.ORDER);
            x.add(y.mul(s)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void sumDivV(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                                long end, double q) {
        for (long i = 0; i < end; i += LANES) {
            long o = i << 3;
            DoubleVector x = DoubleVector.fromMemorySegment(S, a, ao + o, Simd.ORDER);
            DoubleVector y = DoubleVector.fromMemorySegment(S, b, bo + o, Simd.ORDER);
            x.add(y).div(q).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void mulV(MemorySegment x, long xo, MemorySegment d, long dOff, long end, double s) {
        for (long i = 0; i < end; i += LANES) {
            long o = i << 3;
            DoubleVector.fromMemorySegment(S, x, xo + o, Simd.ORDER).mul(s).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void divV(MemorySegment x, long xo, MemorySegment d, long dOff, long end, double q) {
        for (long i = 0; i < end; i += LANES) {
            long o = i << 3;
            DoubleVector.fromMemorySegment(S, x, xo + o, Simd.ORDER).div(q).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void sumS(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long i,
                             long n) {
        for (; i < n; i++) {
            long o = i << 3;
            d.set(E, dOff + o, a.get(E, ao + o) + b.get(E, bo + o));
        }
    }

    private static void prodS(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long i,
                              long n) {
        for (; i < n; i++) {
            long o = i << 3;
            d.set(E, dOff + o, a.get(E, ao + o) * b.get(E, bo + o));
        }
    }

    private static void minS(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long i,
                             long n) {
        for (; i < n; i++) {
            long o = i << 3;
            d.set(E, dOff + o, Math.min(a.get(E, ao + o), b.get(E, bo + o)));
        }
    }

    private static void maxS(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long i,
                             long n) {
        for (; i < n; i++) {
            long o = i << 3;
            d.set(E, dOff + o, Math.max(a.get(E, ao + o), b.get(E, bo + o)));
        }
    }

    private static void mulAddS(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long i,
                                long n, double s) {
        for (; i < n; i++) {
            long o = i << 3;
            double product = s * b.get(E, bo + o);
            d.set(E, dOff + o, a.get(E, ao + o) + product);
        }
    }

    private static void sumDivS(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long i,
                                long n, double q) {
        for (; i < n; i++) {
            long o = i << 3;
            double sum = a.get(E, ao + o) + b.get(E, bo + o);
            d.set(E, dOff + o, sum / q);
        }
    }

    private static void mulS(MemorySegment x, long xo, MemorySegment d, long dOff, long i, long n, double s) {
        for (; i < n; i++) {
            long o = i << 3;
            d.set(E, dOff + o, s * x.get(E, xo + o));
        }
    }

    private static void divS(MemorySegment x, long xo, MemorySegment d, long dOff, long i, long n, double q) {
        for (; i < n; i++) {
            long o = i << 3;
            d.set(E, dOff + o, x.get(E, xo + o) / q);
        }
    }
}
