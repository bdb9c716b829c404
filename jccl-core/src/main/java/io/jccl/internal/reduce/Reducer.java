package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;

import java.lang.foreign.MemorySegment;

/**
 * The arithmetic of one (data type, reduction op, rank count): NCCL's {@code reduceCopy} with its pre-op
 * (PreMulSum's scalar) and post-op (Avg's division by nRanks). Algorithms call it from their primitives; it is
 * stateless and safe to share between threads. Obtain one with {@link #of(DataType, RedOp, int)}.
 *
 * <p>All offsets are in bytes, counts in elements; data is in native byte order and may be unaligned. A destination
 * may be the same memory as one of the sources (same segment, same offset); partial overlap is not allowed.
 * Wrong arguments (negative count, a range outside its segment, a read-only destination) throw
 * {@link io.jccl.JcclException} with {@link io.jccl.Result#INVALID_ARGUMENT}.
 *
 * <p>Semantics per type:
 * <ul>
 *   <li>Integers: SUM, PROD and PRE_MUL_SUM wrap around (two's complement; signed and unsigned give the same bits).
 *       PRE_MUL_SUM needs an integral scalar and multiplies by it modulo 2^bits. MIN/MAX compare unsigned for
 *       uint8/uint32/uint64. AVG divides the wrapped sum by nRanks, truncating toward zero (unsigned division for
 *       unsigned types).</li>
 *   <li>fp32/fp64: IEEE arithmetic in the type, one rounding per operation (no fused multiply-add). PRE_MUL_SUM
 *       uses the scalar rounded to the type; AVG divides in fp32 (fp64 for FLOAT64).</li>
 *   <li>fp16, bf16, fp8: values are widened to fp32 (exact), computed as fp32 is, and rounded once per call to the
 *       type (round to nearest even; fp8 saturates to the largest finite value as CUDA's {@code __NV_SATFINITE},
 *       and every fp8 NaN becomes {@code 0x7F}).</li>
 *   <li>MIN/MAX on floats follow {@link Math#min(float, float)}/{@link Math#max(float, float)}: a NaN operand gives
 *       NaN (NaN propagates, unlike CUDA's {@code fminf}), and -0.0 counts as smaller than +0.0.</li>
 * </ul>
 *
 * <p>Error bound for floats: every element of every call is the correctly rounded result of its operation(s), so
 * one combine/accumulate step errs by at most half an ulp of the type (u = 2^-24 relative for fp32, 2^-53 fp64,
 * 2^-11 fp16, 2^-8 bf16, 2^-4 e4m3, 2^-3 e5m2). PRE_MUL_SUM and the last AVG step add at most two fp32 roundings
 * (2^-24 relative each) before that final rounding. A reduction over n ranks is a chain of n-1 such steps, so its
 * result x̂ satisfies |x̂ - Σx_i| ≤ γ(n-1) · Σ|x_i| with γ(k) = k·u / (1 - k·u) (the classic recursive-summation
 * bound), except where fp8 saturates, a sum overflows, or values fall into the subnormal range (there each step
 * errs by at most half the smallest subnormal). Every rank that applies the same steps in the same order gets the
 * same bits.
 *
 * <p>Owned by: whichever thread runs the primitive (channel worker or caller). Mirrors: NCCL's device reduction
 * functors ({@code FuncSum}, {@code FuncPreMulSum}, {@code FuncSumPostDiv}, ...).
 */
public interface Reducer {

    /** Reducer for {@code op} on {@code type} in a communicator of {@code nRanks} ranks (used by AVG's division). */
    static Reducer of(DataType type, RedOp op, int nRanks) {
        return Reducers.of(type, op, nRanks);
    }

    DataType type();

    RedOp op();

    /** dst = a ⊕ b, for two partial results (no pre-op, no post-op). */
    void combine(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count);

    /**
     * dst = partial ⊕ preOp(input), then postOp(dst) when {@code last}: folds this rank's own input into a partial
     * result that arrived from a peer.
     */
    void accumulate(MemorySegment partial, long partialOff, MemorySegment input, long inputOff,
                    MemorySegment dst, long dstOff, long count, boolean last);

    /**
     * dst = preOp(input), then postOp(dst) when {@code last}: the first contribution of this rank (for ops without a
     * pre-op and not last this is a plain copy).
     */
    void prepare(MemorySegment input, long inputOff, MemorySegment dst, long dstOff, long count, boolean last);

    /** dst = postOp(partial) (a copy for ops without a post-op): finishes a value combined without its post-op. */
    void finish(MemorySegment partial, long partialOff, MemorySegment dst, long dstOff, long count);

    /**
     * True when {@link #prepare} is more than a copy: PRE_MUL_SUM. (AVG's division by a single rank is the identity,
     * so for AVG with one rank {@code prepare(last=true)} is a plain copy too.)
     */
    boolean hasPreOp();

    /** True when the op has a post-op: AVG with more than one rank ({@link #finish} is a copy otherwise). */
    boolean hasPostOp();
}
