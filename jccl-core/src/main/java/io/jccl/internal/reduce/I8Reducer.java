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
 * toward zero (signed) or is an unsigned division (uint8); there is no vector integer division, so it runs as a
 * scalar pass over the vector sum. Owned by: whichever thread runs the primitive (immutable). Mirrors: NCCL's
 * integer {@code FuncSum}, {@code FuncProd}, {@code FuncMinMax}, {@code FuncPreMulSum}, {@code FuncSumPostDiv}.
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

    @Override
    long binaryVector(Kernel k, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                      long n) {
        long end = S.loopBound(n);
        switch (k) {
            case SUM -> sumV(a, ao, b, bo, d, dOff, end);
            case PROD -> prodV(a, ao, b, bo, d, dOff, end);
            case MIN -> {
                if (unsigned) {
                    minUnsignedV(a, ao, b, bo, d, dOff, end);
                } else {
                    minV(a, ao, b, bo, d, dOff, end);
                }
            }
            case MAX -> {
                if (unsigned) {
                    maxUnsignedV(a, ao, b, bo, d, dOff, end);
                } else {
                    maxV(a, ao, b, bo, d, dOff, end);
                }
            }
            case MUL_ADD -> mulAddV(a, ao, b, bo, d, dOff, end, scalar);
            case SUM_DIV -> {
                sumV(a, ao, b, bo, d, dOff, end);
                unaryScalar(true, d, dOff, d, dOff, 0, end);
            }
        }
        return end;
    }

    @Override
    void binaryScalar(Kernel k, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                      long from, long n) {
        switch (k) {
            case SUM -> sumS(a, ao, b, bo, d, dOff, from, n);
            case PROD -> prodS(a, ao, b, bo, d, dOff, from, n);
            case MIN -> {
                if (unsigned) {
                    minUnsignedS(a, ao, b, bo, d, dOff, from, n);
                } else {
                    minS(a, ao, b, bo, d, dOff, from, n);
                }
            }
            case MAX -> {
                if (unsigned) {
                    maxUnsignedS(a, ao, b, bo, d, dOff, from, n);
                } else {
                    maxS(a, ao, b, bo, d, dOff, from, n);
                }
            }
            case MUL_ADD -> mulAddS(a, ao, b, bo, d, dOff, from, n, scalar);
            case SUM_DIV -> {
                sumS(a, ao, b, bo, d, dOff, from, n);
                unaryScalar(true, d, dOff, d, dOff, from, n);
            }
        }
    }

    @Override
    long unaryVector(boolean divide, MemorySegment x, long xo, MemorySegment d, long dOff, long n) {
        if (divide) {
            return 0;
        }
        long end = S.loopBound(n);
        mulV(x, xo, d, dOff, end, scalar);
        return end;
    }

    @Override
    void unaryScalar(boolean divide, MemorySegment x, long xo, MemorySegment d, long dOff, long from, long n) {
        if (!divide) {
            mulS(x, xo, d, dOff, from, n, scalar);
        } else if (unsigned) {
            divUnsignedS(x, xo, d, dOff, from, n, nRanks);
        } else {
            divS(x, xo, d, dOff, from, n, nRanks);
        }
    }

    private static void sumV(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long end) {
        for (long i = 0; i < end; i += LANES) {
            long o = i;
            ByteVector x = ByteVector.fromMemorySegment(S, a, ao + o, Simd.ORDER);
            ByteVector y = ByteVector.fromMemorySegment(S, b, bo + o, Simd.ORDER);
            x.add(y).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void prodV(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                              long end) {
        for (long i = 0; i < end; i += LANES) {
            long o = i;
            ByteVector x = ByteVector.fromMemorySegment(S, a, ao + o, Simd.ORDER);
            ByteVector y = ByteVector.fromMemorySegment(S, b, bo + o, Simd.ORDER);
            x.mul(y).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void minV(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long end) {
        for (long i = 0; i < end; i += LANES) {
            long o = i;
            ByteVector x = ByteVector.fromMemorySegment(S, a, ao + o, Simd.ORDER);
            ByteVector y = ByteVector.fromMemorySegment(S, b, bo + o, Simd.ORDER);
            x.min(y).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void maxV(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long end) {
        for (long i = 0; i < end; i += LANES) {
            long o = i;
            ByteVector x = ByteVector.fromMemorySegment(S, a, ao + o, Simd.ORDER);
            ByteVector y = ByteVector.fromMemorySegment(S, b, bo + o, Simd.ORDER);
            x.max(y).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void minUnsignedV(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                                     long end) {
        for (long i = 0; i < end; i += LANES) {
            long o = i;
            ByteVector x = ByteVector.fromMemorySegment(S, a, ao + o, Simd.ORDER);
            ByteVector y = ByteVector.fromMemorySegment(S, b, bo + o, Simd.ORDER);
            x.lanewise(VectorOperators.UMIN, y).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void maxUnsignedV(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                                     long end) {
        for (long i = 0; i < end; i += LANES) {
            long o = i;
            ByteVector x = ByteVector.fromMemorySegment(S, a, ao + o, Simd.ORDER);
            ByteVector y = ByteVector.fromMemorySegment(S, b, bo + o, Simd.ORDER);
            x.lanewise(VectorOperators.UMAX, y).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void mulAddV(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                                long end, byte s) {
        for (long i = 0; i < end; i += LANES) {
            long o = i;
            ByteVector x = ByteVector.fromMemorySegment(S, a, ao + o, Simd.ORDER);
            ByteVector y = ByteVector.fromMemorySegment(S, b, bo + o, Simd.ORDER);
            x.add(y.mul(s)).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void mulV(MemorySegment x, long xo, MemorySegment d, long dOff, long end, byte s) {
        for (long i = 0; i < end; i += LANES) {
            long o = i;
            ByteVector.fromMemorySegment(S, x, xo + o, Simd.ORDER).mul(s).intoMemorySegment(d, dOff + o, Simd.ORDER);
        }
    }

    private static void sumS(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long i,
                             long n) {
        for (; i < n; i++) {
            long o = i;
            d.set(E, dOff + o, (byte) (a.get(E, ao + o) + b.get(E, bo + o)));
        }
    }

    private static void prodS(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long i,
                              long n) {
        for (; i < n; i++) {
            long o = i;
            d.set(E, dOff + o, (byte) (a.get(E, ao + o) * b.get(E, bo + o)));
        }
    }

    private static void minS(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long i,
                             long n) {
        for (; i < n; i++) {
            long o = i;
            d.set(E, dOff + o, (byte) Math.min(a.get(E, ao + o), b.get(E, bo + o)));
        }
    }

    private static void maxS(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long i,
                             long n) {
        for (; i < n; i++) {
            long o = i;
            d.set(E, dOff + o, (byte) Math.max(a.get(E, ao + o), b.get(E, bo + o)));
        }
    }

    private static void minUnsignedS(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                                     long i, long n) {
        for (; i < n; i++) {
            long o = i;
            byte x = a.get(E, ao + o);
            byte y = b.get(E, bo + o);
            d.set(E, dOff + o, (x & 0xFF) <= (y & 0xFF) ? x : y);
        }
    }

    private static void maxUnsignedS(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                                     long i, long n) {
        for (; i < n; i++) {
            long o = i;
            byte x = a.get(E, ao + o);
            byte y = b.get(E, bo + o);
            d.set(E, dOff + o, (x & 0xFF) >= (y & 0xFF) ? x : y);
        }
    }

    private static void mulAddS(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long i,
                                long n, byte s) {
        for (; i < n; i++) {
            long o = i;
            d.set(E, dOff + o, (byte) (a.get(E, ao + o) + s * b.get(E, bo + o)));
        }
    }

    private static void mulS(MemorySegment x, long xo, MemorySegment d, long dOff, long i, long n, byte s) {
        for (; i < n; i++) {
            long o = i;
            d.set(E, dOff + o, (byte) (s * x.get(E, xo + o)));
        }
    }

    private static void divS(MemorySegment x, long xo, MemorySegment d, long dOff, long i, long n, int q) {
        for (; i < n; i++) {
            long o = i;
            d.set(E, dOff + o, (byte) (x.get(E, xo + o) / q));
        }
    }

    private static void divUnsignedS(MemorySegment x, long xo, MemorySegment d, long dOff, long i, long n, int q) {
        for (; i < n; i++) {
            long o = i;
            d.set(E, dOff + o, (byte) ((x.get(E, xo + o) & 0xFF) / q));
        }
    }
}
