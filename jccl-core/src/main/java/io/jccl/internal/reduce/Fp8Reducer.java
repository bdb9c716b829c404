package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * fp8 (e4m3 and e5m2) kernels: {@link NarrowFloatReducer}'s fp32 pipeline with {@link Fp8}'s conversions (exact
 * widening; round to nearest even, saturating to the largest finite value, NaN to {@code 0x7F}). Vector forms
 * convert {@link Simd#QUARTER} bytes ⇄ fp32 lanes in int arithmetic; scalar widening is a table lookup. Owned by:
 * whichever thread runs the primitive (immutable). Mirrors: NCCL's {@code FuncSum<__nv_fp8_e4m3>} /
 * {@code <__nv_fp8_e5m2>} and friends.
 */
final class Fp8Reducer extends NarrowFloatReducer {
    private static final VectorSpecies<Byte> S = Simd.QUARTER;
    private static final int LANES = Simd.F32.length();
    private static final ValueLayout.OfByte E = ValueLayout.JAVA_BYTE;

    private final Fp8 fmt;

    Fp8Reducer(DataType type, RedOp op, int nRanks, boolean vector) {
        super(type, op, nRanks, vector && S != null);
        this.fmt = type == DataType.FLOAT8_E4M3 ? Fp8.E4M3 : Fp8.E5M2;
    }

    @Override
    void widenVector(MemorySegment src, long off, float[] dst, int n) {
        Fp8 f = fmt;
        for (int i = 0; i < n; i += LANES) {
            f.widen(ByteVector.fromMemorySegment(S, src, off + i, Simd.ORDER)).intoArray(dst, i);
        }
    }

    @Override
    void narrowVector(float[] src, MemorySegment dst, long off, int n) {
        Fp8 f = fmt;
        for (int i = 0; i < n; i += LANES) {
            f.narrow(FloatVector.fromArray(Simd.F32, src, i)).intoMemorySegment(dst, off + i, Simd.ORDER);
        }
    }

    @Override
    void widenScalar(MemorySegment src, long off, float[] dst, int n) {
        Fp8 f = fmt;
        for (int i = 0; i < n; i++) {
            dst[i] = f.widen(src.get(E, off + i));
        }
    }

    @Override
    void narrowScalar(float[] src, MemorySegment dst, long off, int n) {
        Fp8 f = fmt;
        for (int i = 0; i < n; i++) {
            dst.set(E, off + i, f.narrow(src[i]));
        }
    }
}
