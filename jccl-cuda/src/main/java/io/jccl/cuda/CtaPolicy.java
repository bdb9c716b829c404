package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.Locale;

/**
 * How many thread blocks (CTAs) a GPU communicator's collectives may occupy, as NCCL's {@code ncclConfig_t.CTAPolicy}
 * and {@code NCCL_CTA_POLICY}: {@link #ZERO} moves the collectives that only move bytes (allGather, allToAll,
 * broadcast) onto the copy engines where their receive buffers lie in a {@link GpuWindow}, so that a compute kernel
 * running beside them keeps every multiprocessor. Constant family; mirrors NCCL's NCCL_CTA_POLICY_* flags.
 */
public enum CtaPolicy {
    /** The kernels JCCL's planner picks (NCCL_CTA_POLICY_DEFAULT, 0). */
    DEFAULT,
    /** Accepted for NCCL's EFFICIENCY flag (1); JCCL's kernels are sized the same way under it. */
    EFFICIENCY,
    /** Copy-engine collectives on windows (NCCL_CTA_POLICY_ZERO, 2; it wins over EFFICIENCY, as in NCCL). */
    ZERO;

    /**
     * Parses NCCL's flag value ({@code 0}, {@code 1}, {@code 2}, {@code 3}: ZERO wins) or a name
     * ({@code default}, {@code efficiency}, {@code zero}).
     */
    public static CtaPolicy parse(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        try {
            int flags = Integer.parseInt(t);
            if (flags >= 0 && flags <= 3) {
                return (flags & 2) != 0 ? ZERO : (flags & 1) != 0 ? EFFICIENCY : DEFAULT;
            }
        } catch (NumberFormatException notANumber) {
            for (CtaPolicy p : values()) {
                if (p.name().equals(t)) {
                    return p;
                }
            }
        }
        throw new JcclException(Result.INVALID_ARGUMENT, "CTA policy '" + text + "': expected 0, 1, 2 or 3 (NCCL's "
                + "flags: 1 EFFICIENCY, 2 ZERO) or default, efficiency, zero");
    }
}
