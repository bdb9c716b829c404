package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;

import java.lang.foreign.MemorySegment;

/**
 * Maps the four {@link Reducer} entry points onto eight element-wise kernels that each type family implements
 * with a vector loop plus a scalar loop (for tails, and for everything when vectors are off):
 * <pre>
 *   sum/prod/min/max(a, b) → dst      the op itself (AVG and PRE_MUL_SUM combine with sum)
 *   mulAdd(a, b)  = a + scalar·b       PRE_MUL_SUM: fold this rank's input into a partial
 *   mul(x)        = scalar·x           PRE_MUL_SUM: this rank's first contribution
 *   sumDiv(a, b)  = (a + b) / nRanks   AVG: the last fold, rounded once
 *   div(x)        = x / nRanks         AVG: the post-op alone
 * </pre>
 * The op is switched on once per call, never per element. Argument checks are done here, once per call.
 * Owned by: whichever thread runs the primitive (instances are immutable). Mirrors: NCCL's {@code reduceCopy}
 * dispatch on {@code RedOp} with {@code PreOpSrcs} and {@code postOp}.
 */
abstract sealed class ReducerBase implements Reducer
        permits F32Reducer, F64Reducer, I8Reducer, I32Reducer, I64Reducer, Bf16Reducer, Fp16Reducer, Fp8Reducer {

    private final DataType type;
    private final RedOp op;
    private final RedOp.Kind kind;
    /** AVG with more than one rank: the post-op divides. */
    private final boolean postDiv;
    /** Use the vector loops (false: scalar loops only). */
    final boolean vector;
    final int nRanks;

    ReducerBase(DataType type, RedOp op, int nRanks, boolean vector) {
        this.type = type;
        this.op = op;
        this.kind = op.kind();
        this.nRanks = nRanks;
        this.postDiv = kind == RedOp.Kind.AVG && nRanks > 1;
        this.vector = vector;
    }

    abstract void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n);

    abstract void prod(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n);

    abstract void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n);

    abstract void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n);

    /** d = a + scalar·b. */
    abstract void mulAdd(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n);

    /** d = scalar·x. */
    abstract void mul(MemorySegment x, long xOff, MemorySegment d, long dOff, long n);

    /** d = (a + b) / nRanks, rounded once. */
    abstract void sumDiv(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n);

    /** d = x / nRanks. */
    abstract void div(MemorySegment x, long xOff, MemorySegment d, long dOff, long n);

    @Override
    public final DataType type() {
        return type;
    }

    @Override
    public final RedOp op() {
        return op;
    }

    /** True when this instance runs the vector loops (false when scalar is forced or unavailable). */
    public final boolean vectorized() {
        return vector;
    }

    @Override
    public final boolean hasPreOp() {
        return kind == RedOp.Kind.PRE_MUL_SUM;
    }

    @Override
    public final boolean hasPostOp() {
        return postDiv;
    }

    @Override
    public final void combine(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff,
                              long count) {
        if (!check("combine", count, a, aOff, b, bOff, dst, dstOff)) {
            return;
        }
        switch (kind) {
            case SUM, AVG, PRE_MUL_SUM -> sum(a, aOff, b, bOff, dst, dstOff, count);
            case PROD -> prod(a, aOff, b, bOff, dst, dstOff, count);
            case MIN -> min(a, aOff, b, bOff, dst, dstOff, count);
            case MAX -> max(a, aOff, b, bOff, dst, dstOff, count);
        }
    }

    @Override
    public final void accumulate(MemorySegment partial, long partialOff, MemorySegment input, long inputOff,
                                 MemorySegment dst, long dstOff, long count, boolean last) {
        if (!check("accumulate", count, partial, partialOff, input, inputOff, dst, dstOff)) {
            return;
        }
        switch (kind) {
            case SUM -> sum(partial, partialOff, input, inputOff, dst, dstOff, count);
            case PROD -> prod(partial, partialOff, input, inputOff, dst, dstOff, count);
            case MIN -> min(partial, partialOff, input, inputOff, dst, dstOff, count);
            case MAX -> max(partial, partialOff, input, inputOff, dst, dstOff, count);
            case PRE_MUL_SUM -> mulAdd(partial, partialOff, input, inputOff, dst, dstOff, count);
            case AVG -> {
                if (last && postDiv) {
                    sumDiv(partial, partialOff, input, inputOff, dst, dstOff, count);
                } else {
                    sum(partial, partialOff, input, inputOff, dst, dstOff, count);
                }
            }
        }
    }

    @Override
    public final void prepare(MemorySegment input, long inputOff, MemorySegment dst, long dstOff, long count,
                              boolean last) {
        if (!check("prepare", count, input, inputOff, input, inputOff, dst, dstOff)) {
            return;
        }
        if (kind == RedOp.Kind.PRE_MUL_SUM) {
            mul(input, inputOff, dst, dstOff, count);
        } else if (last && postDiv) {
            div(input, inputOff, dst, dstOff, count);
        } else {
            copy(input, inputOff, dst, dstOff, count);
        }
    }

    @Override
    public final void finish(MemorySegment partial, long partialOff, MemorySegment dst, long dstOff, long count) {
        if (!check("finish", count, partial, partialOff, partial, partialOff, dst, dstOff)) {
            return;
        }
        if (postDiv) {
            div(partial, partialOff, dst, dstOff, count);
        } else {
            copy(partial, partialOff, dst, dstOff, count);
        }
    }

    private void copy(MemorySegment src, long srcOff, MemorySegment dst, long dstOff, long count) {
        if (src != dst || srcOff != dstOff) {
            MemorySegment.copy(src, srcOff, dst, dstOff, count * type.sizeBytes());
        }
    }

    /** Validates a call; false when there is nothing to do (count 0). */
    private boolean check(String what, long count, MemorySegment a, long aOff, MemorySegment b, long bOff,
                          MemorySegment d, long dOff) {
        if (count <= 0) {
            if (count < 0) {
                throw new JcclException(Result.INVALID_ARGUMENT, "reduce " + what + " on " + type + ": count "
                        + count + " is negative; pass the number of elements (>= 0)");
            }
            return false;
        }
        if (count > Long.MAX_VALUE / type.sizeBytes()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "reduce " + what + " on " + type + ": count " + count
                    + " overflows a byte size");
        }
        long bytes = count * type.sizeBytes();
        checkRange(what, "source", a, aOff, bytes);
        checkRange(what, "source", b, bOff, bytes);
        checkRange(what, "destination", d, dOff, bytes);
        if (d.isReadOnly()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "reduce " + what + " on " + type
                    + ": the destination segment is read-only; pass a writable segment");
        }
        return true;
    }

    private void checkRange(String what, String role, MemorySegment seg, long off, long bytes) {
        if (off < 0 || off > seg.byteSize() - bytes) {
            throw new JcclException(Result.INVALID_ARGUMENT, "reduce " + what + " on " + type + ": " + role
                    + " bytes [" + off + ", " + (off + bytes) + ") do not fit in a segment of " + seg.byteSize()
                    + " bytes; pass a larger segment, a smaller count or a smaller offset");
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + type + ", " + op + (kind == RedOp.Kind.AVG ? ", nRanks=" + nRanks
                : "") + (vector ? ", vector" : ", scalar") + "]";
    }
}
