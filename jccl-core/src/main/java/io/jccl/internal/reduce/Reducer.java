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
 * fp16, bf16 and fp8 values are computed in fp32 and rounded once per call (round to nearest even; fp8 saturates
 * to the largest finite value as CUDA's {@code __NV_SATFINITE}).
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

    /** True when {@link #prepare} is more than a copy (PreMulSum, or AVG with one rank). */
    boolean hasPreOp();

    /** True when the op has a post-op (AVG). */
    boolean hasPostOp();
}
