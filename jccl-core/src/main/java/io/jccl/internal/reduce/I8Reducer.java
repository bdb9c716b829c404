package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * int8 and uint8 kernels. SUM, PROD and PRE_MUL_SUM wrap around (two's complement, the same bits for signed and
 * unsigned; the scalar is taken modulo 2^8). MIN/MAX compare signed or unsigned by type. AVG's division truncates
 * toward zero (signed) or is an unsigned division (uint8); it runs as a scalar pass after the vector sum.
 * Owned by: whichever thread runs the primitive (immutable). Mirrors: NCCL's integer {@code FuncSum},
 * {@code FuncProd}, {@code FuncMinMax}, {@code FuncPreMulSum}, {@code FuncSumPostDiv}.
 */
final class I8Reducer extends ReducerBase {
    private static final VectorSpecies<Byte> S = Simd.I8;
    private static final int LANES = S.length();
    private static final ValueLayout.OfByte E = ValueLayout.JAVA_BYTE;

    private final boolean unsigned;
    private final byte scalar;

    I8Reducer(DataType type, RedOp op, int nRanks, boolean vector) {
        super(type, op, nRanks, vector);
        this.unsigned = type.isUnsigned();
        this.scalar = (byte) Reducers.integralScalar(op);
    }

    private static ByteVector load(MemorySegment s, long off) {
        return ByteVector.fromMemorySegment(S, s, off, Simd.ORDER);
    }

    private long bound(long n) {
        return vector ? S.loopBound(n) : 0;
    }

    @Override
    void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            load(a, ao + i).add(load(b, bo + i)).intoMemorySegment(d, dOff + i, Simd.ORDER);
        }
        for (; i < n; i++) {
            d.set(E, dOff + i, (byte) (a.get(E, ao + i) + b.get(E, bo + i)));
        }
    }

    @Override
    void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            load(a, ao + i).mul(load(b, bo + i)).intoMemorySegment(d, dOff + i, Simd.ORDER);
        }
        for (; i < n; i++) {
            d.set(E, dOff + i, (byte) (a.get(E, ao + i) * b.get(E, bo + i)));
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
            load(a, ao + i).min(load(b, bo + i)).intoMemorySegment(d, dOff + i, Simd.ORDER);
        }
        for (; i < n; i++) {
            d.set(E, dOff + i, (byte) Math.min(a.get(E, ao + i), b.get(E, bo + i)));
        }
    }

    private void minUnsigned(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            load(a, ao + i).lanewise(VectorOperators.UMIN, load(b, bo + i)).intoMemorySegment(d, dOff + i, Simd.ORDER);
        }
        for (; i < n; i++) {
            byte x = a.get(E, ao + i);
            byte y = b.get(E, bo + i);
            d.set(E, dOff + i, (x & 0xFF) <= (y & 0xFF) ? x : y);
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
            load(a, ao + i).max(load(b, bo + i)).intoMemorySegment(d, dOff + i, Simd.ORDER);
        }
        for (; i < n; i++) {
            d.set(E, dOff + i, (byte) Math.max(a.get(E, ao + i), b.get(E, bo + i)));
        }
    }

    private void maxUnsigned(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            load(a, ao + i).lanewise(VectorOperators.UMAX, load(b, bo + i)).intoMemorySegment(d, dOff + i, Simd.ORDER);
        }
        for (; i < n; i++) {
            byte x = a.get(E, ao + i);
            byte y = b.get(E, bo + i);
            d.set(E, dOff + i, (x & 0xFF) >= (y & 0xFF) ? x : y);
        }
    }

    @Override
    void mulAdd(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        byte s = scalar;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            load(a, ao + i).add(load(b, bo + i).mul(s)).intoMemorySegment(d, dOff + i, Simd.ORDER);
        }
        for (; i < n; i++) {
            d.set(E, dOff + i, (byte) (a.get(E, ao + i) + s * b.get(E, bo + i)));
        }
    }

    @Override
    void mul(MemorySegment x, long xo, MemorySegment d, long dOff, long n) {
        byte s = scalar;
        long i = 0;
        for (long end = bound(n); i < end; i += LANES) {
            load(x, xo + i).mul(s).intoMemorySegment(d, dOff + i, Simd.ORDER);
        }
        for (; i < n; i++) {
            d.set(E, dOff + i, (byte) (s * x.get(E, xo + i)));
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
                d.set(E, dOff + i, (byte) ((x.get(E, xo + i) & 0xFF) / q));
            }
        } else {
            for (long i = 0; i < n; i++) {
                d.set(E, dOff + i, (byte) (x.get(E, xo + i) / q));
            }
        }
    }
}
