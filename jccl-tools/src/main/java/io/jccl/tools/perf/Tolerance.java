package io.jccl.tools.perf;

import io.jccl.DataType;

/**
 * How far a checked floating-point result may be from the exact value. The inputs ({@link DataPattern}) make sum,
 * prod, min and max exact in every type, so those are compared exactly, as are all integer results. Two cases round:
 * <ul>
 *   <li>avg: the exact mean is generally not representable, and an implementation may either divide the exact sum
 *       once (one rounding, at most u·|mean|) or pre-multiply every input by 1/n and sum (n roundings, each at most
 *       u·Σ|x|/n). Both stay within u·Σ|x|;</li>
 *   <li>mulsum: exact with scalars 1 and 2, but an implementation may scale in a wider type and round after each
 *       step; the same bound covers it.</li>
 * </ul>
 * The allowed error is twice that bound, {@code 2·u·Σ|scalar·x|}, plus one subnormal step per rank and one more for
 * the final division, where u is {@link TypeLimits#unitRoundoff} (2^-24 for fp32, 2^-11 for fp16, 2^-8 for bf16,
 * 2^-4 for e4m3, 2^-3 for e5m2). Stateless; the host counterpart of nccl-tests' inexact-result checks.
 */
public final class Tolerance {
    private Tolerance() {
    }

    /** True when results of {@code op} on {@code type} must match exactly. */
    public static boolean exact(DataType type, OpChoice op) {
        return !type.isFloatingPoint() || op == null || (op != OpChoice.AVG && op != OpChoice.MULSUM);
    }

    /**
     * The largest accepted |result − exact| for an element whose inputs (after the mulsum scalar) have absolute
     * values summing to {@code sumAbsInputs}; 0 when the result must be exact.
     */
    public static double bound(DataType type, OpChoice op, int nRanks, double sumAbsInputs) {
        if (exact(type, op)) {
            return 0.0;
        }
        return 2.0 * TypeLimits.unitRoundoff(type) * sumAbsInputs + (nRanks + 1) * TypeLimits.subnormalStep(type);
    }
}
