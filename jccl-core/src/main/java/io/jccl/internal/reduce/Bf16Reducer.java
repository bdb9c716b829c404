package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * bfloat16 kernels: {@link NarrowFloatReducer}'s fp32 pipeline with {@link Bf16}'s conversions. The vector forms
 * widen by a 16-bit shift in int lanes and narrow with round-to-nearest-even in int lanes ({@link Simd#HALF}
 * shorts ⇄ fp32 lanes). For one add, multiply, min or max, computing in fp32 and rounding once gives the same bits
 * as native bf16 arithmetic (fp32 has more than 2p+2 bits). Owned by: whichever thread runs the primitive
 * (immutable). Mirrors: NCCL's {@code FuncSum<__nv_bfloat16>} and friends.
 */
final class Bf16Reducer extends NarrowFloatReducer {
    private static final VectorSpecies<Short> S = Simd.HALF;
    private static final int LANES = Simd.F32.length();
    private static final ValueLayout.OfShort E = ValueLayout.JAVA_SHORT_UNALIGNED;

    Bf16Reducer(RedOp op, int nRanks, boolean vector) {
        super(DataType.BFLOAT16, op, nRanks, vector && S != null);
    }

    @Override
    void widenVector(MemorySegment src, long off, float[] dst, int n) {
        for (int i = 0; i < n; i += LANES) {
            Bf16.widen(ShortVector.fromMemorySegment(S, src, off + 2L * i, Simd.ORDER)).intoArray(dst, i);
        }
    }

    @Override
    void narrowVector(float[] src, MemorySegment dst, long off, int n) {
        for (int i = 0; i < n; i += LANES) {
            Bf16.narrow(FloatVector.fromArray(Simd.F32, src, i)).intoMemorySegment(dst, off + 2L * i, Simd.ORDER);
        }
    }

    @Override
    void widenScalar(MemorySegment src, long off, float[] dst, int n) {
        for (int i = 0; i < n; i++) {
            dst[i] = Bf16.widen(src.get(E, off + 2L * i));
        }
    }

    @Override
    void narrowScalar(float[] src, MemorySegment dst, long off, int n) {
        for (int i = 0; i < n; i++) {
            dst.set(E, off + 2L * i, Bf16.narrow(src[i]));
        }
    }
}
