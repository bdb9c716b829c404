package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;

import java.lang.foreign.MemorySegment;

/**
 * Maps the four {@link Reducer} entry points onto eight element-wise kernels, each implemented by every type family
 * twice: a vector method over the longest prefix that fills whole vectors, and a scalar method for the rest (the
 * tail, or everything when vectors are off). Keeping the two loops in separate methods gives each its own JIT
 * profile and inlining budget: a scalar loop compiled inside a vector method, with no profile for the tail, runs at
 * interpreter speed once it is used for everything. Vector kernels that the JIT has not compiled yet are held back
 * by {@link Warmup}.
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
        permits F32Reducer, F64Reducer, I8Reducer, I32Reducer, I64Reducer, NarrowFloatReducer {

    /** The kernels, for dispatch in this class; their element-wise meaning is above. */
    enum Kernel { SUM, PROD, MIN, MAX, MUL_ADD, SUM_DIV }

    private final DataType type;
    private final RedOp op;
    private final RedOp.Kind kind;
    /** AVG with more than one rank: the post-op divides. */
    private final boolean postDiv;
    /** Use the vector loops (false: scalar loops only). */
    final boolean vector;
    final int nRanks;
    private final int elementBytes;
    private final Warmup warmup;

    ReducerBase(DataType type, RedOp op, int nRanks, boolean vector) {
        this.type = type;
        this.op = op;
        this.kind = op.kind();
        this.nRanks = nRanks;
        this.postDiv = kind == RedOp.Kind.AVG && nRanks > 1;
        this.vector = vector;
        this.elementBytes = type.sizeBytes();
        this.warmup = Warmup.of(type);
    }

    /**
     * d = a ⊕ b for a leading part of [0, n) that fills whole vectors; returns how many elements it did. Called only
     * when {@link #vector} is set; while the kernel is cold ({@link Warmup}) only on short probes.
     */
    abstract long binaryVector(Kernel k, MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d,
                               long dOff, long n);

    /** d = a ⊕ b for elements [from, n), one at a time. */
    abstract void binaryScalar(Kernel k, MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d,
                               long dOff, long from, long n);

    /** d = scalar·x ({@code divide} false) or x / nRanks ({@code divide} true) for a vector-filling prefix. */
    abstract long unaryVector(boolean divide, MemorySegment x, long xOff, MemorySegment d, long dOff, long n);

    /** d = scalar·x or x / nRanks for elements [from, n), one at a time. */
    abstract void unaryScalar(boolean divide, MemorySegment x, long xOff, MemorySegment d, long dOff, long from,
                              long n);

    private void binary(Kernel k, MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff,
                        long n) {
        long done = 0;
        if (vector) {
            if (!warmup.isHot(k.ordinal())) {
                binaryWarming(k, a, aOff, b, bOff, d, dOff, n);
                return;
            }
            done = binaryVector(k, a, aOff, b, bOff, d, dOff, n);
        }
        if (done < n) {
            binaryScalar(k, a, aOff, b, bOff, d, dOff, done, n);
        }
    }

    private void unary(boolean divide, MemorySegment x, long xOff, MemorySegment d, long dOff, long n) {
        long done = 0;
        if (vector) {
            if (!warmup.isHot(divide ? Warmup.DIV_SLOT : Warmup.MUL_SLOT)) {
                unaryWarming(divide, x, xOff, d, dOff, n);
                return;
            }
            done = unaryVector(divide, x, xOff, d, dOff, n);
        }
        if (done < n) {
            unaryScalar(divide, x, xOff, d, dOff, done, n);
        }
    }

    /** {@link #binary} while the kernel is cold: slices, each a timed vector probe plus scalar (see {@link Warmup}). */
    private void binaryWarming(Kernel k, MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d,
                               long dOff, long n) {
        int slot = k.ordinal();
        for (long from = 0; from < n; from += Warmup.SLICE_ELEMENTS) {
            long len = Math.min(Warmup.SLICE_ELEMENTS, n - from);
            long off = from * elementBytes;
            long done;
            if (warmup.isHot(slot)) {
                done = binaryVector(k, a, aOff + off, b, bOff + off, d, dOff + off, len);
            } else {
                long t0 = System.nanoTime();
                done = binaryVector(k, a, aOff + off, b, bOff + off, d, dOff + off,
                        Math.min(len, Warmup.PROBE_ELEMENTS));
                warmup.record(slot, System.nanoTime() - t0, done);
            }
            if (done < len) {
                binaryScalar(k, a, aOff + off, b, bOff + off, d, dOff + off, done, len);
            }
        }
    }

    /** {@link #unary} while the kernel is cold (see {@link #binaryWarming}). */
    private void unaryWarming(boolean divide, MemorySegment x, long xOff, MemorySegment d, long dOff, long n) {
        int slot = divide ? Warmup.DIV_SLOT : Warmup.MUL_SLOT;
        for (long from = 0; from < n; from += Warmup.SLICE_ELEMENTS) {
            long len = Math.min(Warmup.SLICE_ELEMENTS, n - from);
            long off = from * elementBytes;
            long done;
            if (warmup.isHot(slot)) {
                done = unaryVector(divide, x, xOff + off, d, dOff + off, len);
            } else {
                long t0 = System.nanoTime();
                done = unaryVector(divide, x, xOff + off, d, dOff + off, Math.min(len, Warmup.PROBE_ELEMENTS));
                warmup.record(slot, System.nanoTime() - t0, done);
            }
            if (done < len) {
                unaryScalar(divide, x, xOff + off, d, dOff + off, done, len);
            }
        }
    }

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
        Kernel k = switch (kind) {
            case SUM, AVG, PRE_MUL_SUM -> Kernel.SUM;
            case PROD -> Kernel.PROD;
            case MIN -> Kernel.MIN;
            case MAX -> Kernel.MAX;
        };
        binary(k, a, aOff, b, bOff, dst, dstOff, count);
    }

    @Override
    public final void accumulate(MemorySegment partial, long partialOff, MemorySegment input, long inputOff,
                                 MemorySegment dst, long dstOff, long count, boolean last) {
        if (!check("accumulate", count, partial, partialOff, input, inputOff, dst, dstOff)) {
            return;
        }
        Kernel k = switch (kind) {
            case SUM -> Kernel.SUM;
            case PROD -> Kernel.PROD;
            case MIN -> Kernel.MIN;
            case MAX -> Kernel.MAX;
            case PRE_MUL_SUM -> Kernel.MUL_ADD;
            case AVG -> last && postDiv ? Kernel.SUM_DIV : Kernel.SUM;
        };
        binary(k, partial, partialOff, input, inputOff, dst, dstOff, count);
    }

    @Override
    public final void prepare(MemorySegment input, long inputOff, MemorySegment dst, long dstOff, long count,
                              boolean last) {
        if (!check("prepare", count, input, inputOff, input, inputOff, dst, dstOff)) {
            return;
        }
        if (kind == RedOp.Kind.PRE_MUL_SUM) {
            unary(false, input, inputOff, dst, dstOff, count);
        } else if (last && postDiv) {
            unary(true, input, inputOff, dst, dstOff, count);
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
            unary(true, partial, partialOff, dst, dstOff, count);
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
