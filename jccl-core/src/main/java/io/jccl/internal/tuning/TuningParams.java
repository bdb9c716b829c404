package io.jccl.internal.tuning;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.TopoEnv;

/**
 * The NCCL_* settings of the tuner, read once per communicator.
 *
 * @param algo             NCCL_ALGO (null = unset)
 * @param proto            NCCL_PROTO (null = unset)
 * @param minChannels      NCCL_MIN_NCHANNELS (0 = none)
 * @param maxChannels      NCCL_MAX_NCHANNELS (0 = none)
 * @param netOverheadUs    NCCL_NET_OVERHEAD in µs (given in ns); negative = by CPU (Intel/other 1.0, AMD 2.0)
 * @param ll128C2c         NCCL_LL128_C2C (default on): allow LL128 over PXN/C2C paths on Hopper+
 * @param threadThresholds NCCL_THREAD_THRESHOLDS (6 values: Tree LL/LL128/Simple, Ring LL/LL128/Simple), null = NCCL's
 * @param nThreads         NCCL_NTHREADS (0 = default 512)
 * @param ll128NThreads    NCCL_LL128_NTHREADS (0 = default 640)
 * @param tunerPlugin      NCCL_TUNER_PLUGIN (null = first found, "none" = off)
 *
 * <p>Immutable.
 */
public record TuningParams(String algo, String proto, int minChannels, int maxChannels, double netOverheadUs,
                           boolean ll128C2c, long[] threadThresholds, int nThreads, int ll128NThreads,
                           String tunerPlugin) {

    public static TuningParams defaults() {
        return new TuningParams(null, null, 0, 0, -1, true, null, 0, 0, null);
    }

    public static TuningParams from(TopoEnv env) {
        long overheadNs = env.longValue("NCCL_NET_OVERHEAD", -2);
        long[] thresholds = null;
        String t = env.string("NCCL_THREAD_THRESHOLDS");
        if (t != null) {
            String[] parts = t.trim().split("\\s+");
            if (parts.length != 6) {
                throw new JcclException(Result.INVALID_ARGUMENT, "NCCL_THREAD_THRESHOLDS=\"" + t + "\" needs 6 numbers"
                        + " (Tree LL, LL128, Simple, Ring LL, LL128, Simple)");
            }
            thresholds = new long[6];
            for (int i = 0; i < 6; i++) {
                try {
                    thresholds[i] = Long.parseLong(parts[i]);
                } catch (NumberFormatException e) {
                    throw new JcclException(Result.INVALID_ARGUMENT, "NCCL_THREAD_THRESHOLDS=\"" + t + "\": '"
                            + parts[i]
                            + "' is not a number");
                }
            }
        }
        int nThreads = env.intValue("NCCL_NTHREADS", 0);
        if (nThreads != 0 && (nThreads < 64 || nThreads > 512 || nThreads % 32 != 0)) {
            throw new JcclException(Result.INVALID_ARGUMENT, "NCCL_NTHREADS=" + nThreads
                    + " must be a multiple of 32 between 64 and 512");
        }
        int ll128 = env.intValue("NCCL_LL128_NTHREADS", 0);
        if (ll128 != 0 && (ll128 < 160 || ll128 > 640 || ll128 % 32 != 0)) {
            throw new JcclException(Result.INVALID_ARGUMENT, "NCCL_LL128_NTHREADS=" + ll128
                    + " must be a multiple of 32 between 160 and 640");
        }
        int min = env.intValue("NCCL_MIN_NCHANNELS", env.intValue("NCCL_MIN_NRINGS", 0));
        int max = env.intValue("NCCL_MAX_NCHANNELS", env.intValue("NCCL_MAX_NRINGS", 0));
        if (min < 0 || max < 0 || min > 64 || max > 64) {
            throw new JcclException(Result.INVALID_ARGUMENT, "NCCL_MIN_NCHANNELS=" + min + " / NCCL_MAX_NCHANNELS="
                    + max
                    + " must be within 0..64");
        }
        return new TuningParams(env.string("NCCL_ALGO"), env.string("NCCL_PROTO"), min, max,
                overheadNs < 0 ? -1 : overheadNs * 0.001, env.longValue("NCCL_LL128_C2C", 1) != 0, thresholds, nThreads,
                ll128, env.string("NCCL_TUNER_PLUGIN"));
    }
}
