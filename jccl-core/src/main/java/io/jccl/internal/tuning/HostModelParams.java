package io.jccl.internal.tuning;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.TopoEnv;

/**
 * Parameters of the host (CPU-only) cost model, per protocol (index = {@link Protocol} ordinal). Defaults are JCCL's
 * estimates for a Java host executor, to be calibrated with {@code ./jccl perf}:
 * <ul>
 *   <li>base latency per operation (enqueue, wake the channel workers): LL 1.0, LL128 1.5, Simple 2.0 µs;</li>
 *   <li>shared memory, per hop: LL 0.5 µs (a flagged 16-byte line crosses a cache line), LL128 0.8, Simple 1.5 µs (a
 *   head/tail credit round trip); per channel: LL 0.6, LL128 1.5, Simple 3.5 GB/s (measured with ./jccl perf, 2 ranks
 *   on a 2-core Xeon VM: packing flagged lines costs the line protocols more in Java than their extra bytes);</li>
 *   <li>sockets, per hop: LL 15, LL128 15, Simple 20 µs (TCP round trip through the proxy thread); per channel: LL 0.5,
 *   LL128 1.2, Simple 1.5 GB/s (loopback or one NIC stream).</li>
 * </ul>
 * Each value can be overridden by {@code JCCL_HOST_<WHAT>_<PROTO>} (e.g. {@code JCCL_HOST_SHM_LAT_US_SIMPLE=2.5},
 * WHAT one of BASE_LAT_US, SHM_LAT_US, SHM_BW_GBPS, NET_LAT_US, NET_BW_GBPS).
 *
 * @param baseLatUs  per-operation latency
 * @param shmLatUs   per hop inside a host
 * @param shmBwGBps  per channel inside a host
 * @param netLatUs   per hop across hosts
 * @param netBwGBps  per channel across hosts
 * @param protocols  protocols the host executor implements (others are reported unavailable)
 *
 * <p>Immutable by convention (arrays are not copied).
 */
public record HostModelParams(double[] baseLatUs, double[] shmLatUs, double[] shmBwGBps, double[] netLatUs,
                              double[] netBwGBps, java.util.Set<Protocol> protocols) {

    public static HostModelParams defaults() {
        return new HostModelParams(new double[] {1.0, 1.5, 2.0}, new double[] {0.5, 0.8, 1.5},
                new double[] {0.6, 1.5, 3.5}, new double[] {15.0, 15.0, 20.0}, new double[] {0.5, 1.2, 1.5},
                java.util.EnumSet.allOf(Protocol.class));
    }

    /** Defaults with JCCL_HOST_* overrides from the environment. */
    public static HostModelParams from(TopoEnv env) {
        HostModelParams d = defaults();
        return new HostModelParams(read(env, "BASE_LAT_US", d.baseLatUs), read(env, "SHM_LAT_US", d.shmLatUs),
                read(env, "SHM_BW_GBPS", d.shmBwGBps), read(env, "NET_LAT_US", d.netLatUs),
                read(env, "NET_BW_GBPS", d.netBwGBps), d.protocols);
    }

    private static double[] read(TopoEnv env, String what, double[] dflt) {
        double[] v = dflt.clone();
        for (Protocol p : Protocol.values()) {
            String name = "JCCL_HOST_" + what + "_" + p.ncclName().toUpperCase(java.util.Locale.ROOT);
            String s = env.string(name);
            if (s != null) {
                try {
                    v[p.ordinal()] = Double.parseDouble(s);
                } catch (NumberFormatException e) {
                    throw new JcclException(Result.INVALID_ARGUMENT, name + "=" + s + " is not a number");
                }
                if (!(v[p.ordinal()] >= 0)) {
                    throw new JcclException(Result.INVALID_ARGUMENT, name + "=" + s + " must be >= 0");
                }
            }
        }
        return v;
    }

    public HostModelParams withProtocols(java.util.Set<Protocol> available) {
        return new HostModelParams(baseLatUs, shmLatUs, shmBwGBps, netLatUs, netBwGBps,
                java.util.Set.copyOf(available));
    }
}
