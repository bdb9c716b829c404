package io.jccl.tools.perf;

import java.util.Locale;

/**
 * What {@code jccl perf} measures ({@code --backend}): JCCL on host memory, JCCL on GPUs, NCCL (libnccl.so.2
 * through FFM) on the same GPU buffers and streams, or both GPU libraries one after the other in one run. Constant
 * family.
 */
public enum PerfTarget {
    /** JCCL's host communicator on host memory. */
    HOST,
    /** JCCL's GpuCommunicator on device memory. */
    JCCL,
    /** NCCL on device memory. */
    NCCL,
    /** JCCL, then NCCL, on the same device buffers and streams, then a side-by-side table. */
    BOTH;

    /** True for the targets that run on GPUs. */
    public boolean gpu() {
        return this != HOST;
    }

    /** Parses {@code host}, {@code jccl}, {@code nccl} or {@code both}. */
    public static PerfTarget parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown --backend '" + s + "'; expected host, jccl, nccl or both");
        }
    }
}
