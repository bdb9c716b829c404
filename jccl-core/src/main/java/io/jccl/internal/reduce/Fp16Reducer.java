package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * fp16 (IEEE binary16) kernels: {@link NarrowFloatReducer}'s fp32 pipeline with the JDK's conversions
 * ({@link Float#float16ToFloat}, {@link Float#floatToFloat16}: exact widening, round to nearest even, overflow to
 * infinity). The Vector API has no fp16 conversion; integer-lane emulation was measured at about 0.2 ns per element
 * each way, while C2 compiles these plain loops over a memory segment into the CPU's own vector conversions
 * ({@code vcvtph2ps}/{@code vcvtps2ph}) at about 0.05 ns, so the vector path uses the same loops as the scalar one.
 * For one add, multiply, min or max, computing in fp32 and rounding once gives the same bits as native fp16
 * arithmetic. Owned by: whichever thread runs the primitive (immutable). Mirrors: NCCL's {@code FuncSum<half>}.
 */
final class Fp16Reducer extends NarrowFloatReducer {
    private static final ValueLayout.OfShort E = ValueLayout.JAVA_SHORT_UNALIGNED;

    Fp16Reducer(RedOp op, int nRanks, boolean vector) {
        super(DataType.FLOAT16, op, nRanks, vector);
    }

    // The vector block loop lives in each narrow type's own class so that C2 compiles only this type's conversions
    // into it (see NarrowFloatReducer).

    @Override
    long binaryVector(Kernel k, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff,
                      long n) {
        long end = Simd.F32.loopBound(n);
        float[][] t = scratch();
        float[] x = t[0];
        float[] y = t[1];
        for (long base = 0; base < end; base += BLOCK) {
            int m = (int) Math.min(BLOCK, end - base);
            long off = base * 2L;
            widenVector(a, ao + off, x, m);
            widenVector(b, bo + off, y, m);
            FloatBlocks.binary(k, x, y, m, scalar, divisor, true);
            narrowVector(x, d, dOff + off, m);
        }
        return end;
    }

    @Override
    long unaryVector(boolean divide, MemorySegment src, long so, MemorySegment d, long dOff, long n) {
        long end = Simd.F32.loopBound(n);
        float[] x = scratch()[0];
        for (long base = 0; base < end; base += BLOCK) {
            int m = (int) Math.min(BLOCK, end - base);
            long off = base * 2L;
            widenVector(src, so + off, x, m);
            FloatBlocks.unary(divide, x, m, scalar, divisor, true);
            narrowVector(x, d, dOff + off, m);
        }
        return end;
    }

    void widenVector(MemorySegment src, long off, float[] dst, int n) {
        widenScalar(src, off, dst, n);
    }

    void narrowVector(float[] src, MemorySegment dst, long off, int n) {
        narrowScalar(src, dst, off, n);
    }

    @Override
    void widenScalar(MemorySegment src, long off, float[] dst, int n) {
        for (int i = 0; i < n; i++) {
            dst[i] = Float.float16ToFloat(src.get(E, off + 2L * i));
        }
    }

    @Override
    void narrowScalar(float[] src, MemorySegment dst, long off, int n) {
        for (int i = 0; i < n; i++) {
            dst.set(E, off + 2L * i, Float.floatToFloat16(src[i]));
        }
    }
}
