package io.jccl.internal.param;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import static io.jccl.internal.param.ParamCategory.CUDA;
import static io.jccl.internal.param.ParamCategory.GRAPH;
import static io.jccl.internal.param.ParamCategory.TOOLS;
import static io.jccl.internal.param.ParamCategory.TUNING;

/**
 * Parameters read outside the communicator core, declared here so that the registry lists them, documents them and
 * knows their names: topology and graph search ({@code TopoParams}), the tuner ({@code TuningParams},
 * {@code HostModelParams}), the tools and the {@code jccl} script, and the CUDA module. Their readers parse them with
 * NCCL's rules (through {@code TopoEnv}, which reads the same sources as {@link Param}).
 *
 * <p>Owned by: any thread (immutable). Mirrors: the NCCL_PARAMs of graph/, tuning/ and the tools.
 */
public final class ExternalParams {
    private static final List<Param<?>> ALL = new ArrayList<>();
    private static final String LEVELS = "LOC|NVL|NVB|C2C|PIX|PXB|P2C|PXN|PHB|SYS or 0-5";

    // ---- topology ------------------------------------------------------------------------------------------
    public static final Param<Integer> P2P_DISABLE = add(Param.ofInt("NCCL_P2P_DISABLE", 0, GRAPH,
            "1: GPUs never use peer-to-peer (same as NCCL_P2P_LEVEL=LOC)").range(0, 1));
    public static final Param<String> P2P_LEVEL = add(Param.ofString("NCCL_P2P_LEVEL", "", GRAPH,
            "farthest path type over which GPUs use P2P (" + LEVELS + "); default PXB").checkedBy(ExternalParams::level,
            LEVELS));
    public static final Param<String> NET_GDR_LEVEL = add(Param.ofString("NCCL_NET_GDR_LEVEL", "", GRAPH,
            "farthest GPU-to-NIC path type for GPU Direct RDMA (" + LEVELS + "); default PXB")
            .checkedBy(ExternalParams::level, LEVELS));
    public static final Param<Integer> NET_GDR_READ = add(Param.ofInt("NCCL_NET_GDR_READ", -2, GRAPH,
            "1: GPU connectors send from device memory with GPU Direct RDMA (reads); 0: send from host memory; "
            + "default (-2): on for GPUs of compute capability 8.0 and later").range(-2, 1));
    public static final Param<Integer> CROSS_NIC = add(Param.ofInt("NCCL_CROSS_NIC", 2, GRAPH,
            "0: a ring leaves through the NIC it entered by; 1: any NIC; 2: try the same NIC, then alternate rails")
            .range(0, 2));
    public static final Param<Integer> PXN_DISABLE = add(Param.ofInt("NCCL_PXN_DISABLE", 0, GRAPH,
            "1: never route GPU-to-NIC traffic through an NVLink peer GPU").range(0, 1));
    public static final Param<Integer> NVB_DISABLE = add(Param.ofInt("NCCL_NVB_DISABLE", 0, GRAPH,
            "1: never route GPU-to-GPU traffic through an intermediate GPU").range(0, 1));
    public static final Param<Integer> C2C_ENABLE = add(Param.ofInt("NCCL_C2C_ENABLE", 1, GRAPH,
            "use GPU-CPU C2C links for GPU-to-NIC traffic (P2C paths)").range(0, 1));
    public static final Param<String> TOPO_FILE = add(Param.ofString("NCCL_TOPO_FILE", "", GRAPH,
            "read the topology from this XML file instead of discovering it"));
    public static final Param<String> TOPO_DUMP_FILE = add(Param.ofString("NCCL_TOPO_DUMP_FILE", "", GRAPH,
            "write the topology as XML to this file"));
    public static final Param<String> GRAPH_FILE = add(Param.ofString("NCCL_GRAPH_FILE", "", GRAPH,
            "load ring/tree graphs from this XML file instead of searching"));
    public static final Param<String> GRAPH_DUMP_FILE = add(Param.ofString("NCCL_GRAPH_DUMP_FILE", "", GRAPH,
            "write the searched graphs as XML to this file"));

    // ---- tuning --------------------------------------------------------------------------------------------
    public static final Param<String> ALGO = add(Param.ofString("NCCL_ALGO", "", TUNING,
            "algorithms allowed, e.g. ring,tree or ^tree (per collective: allreduce:ring;broadcast:tree)"));
    public static final Param<String> PROTO = add(Param.ofString("NCCL_PROTO", "", TUNING,
            "protocols allowed, e.g. LL,Simple or ^LL128 (leaving LL128 out of allreduce also turns off the GPU "
                    + "communicator's LL128 allReduce unless -Djccl.cuda.ll128MaxBytes is set)"));
    public static final Param<Long> NET_OVERHEAD = add(Param.ofLong("NCCL_NET_OVERHEAD", -2, TUNING,
            "network overhead in ns added per step by the cost model; negative: by CPU (1000 Intel, 2000 AMD)"));
    public static final Param<Integer> LL128_C2C = add(Param.ofInt("NCCL_LL128_C2C", 1, TUNING,
            "allow LL128 over PXN/C2C paths on Hopper and newer").range(0, 1));
    public static final Param<String> THREAD_THRESHOLDS = add(Param.ofString("NCCL_THREAD_THRESHOLDS", "", TUNING,
            "6 numbers: bytes per thread below which fewer threads are used (Tree LL/LL128/Simple, Ring "
                    + "LL/LL128/Simple)"));
    public static final Param<Integer> NTHREADS = add(Param.ofInt("NCCL_NTHREADS", 0, TUNING,
            "threads per GPU block for LL and Simple (multiple of 32, 64..512; 0: 512)").range(0, 512));
    public static final Param<Integer> LL128_NTHREADS = add(Param.ofInt("NCCL_LL128_NTHREADS", 0, TUNING,
            "threads per GPU block for LL128 (multiple of 32, 160..640; 0: 640)").range(0, 640));
    public static final Param<String> TUNER_PLUGIN = add(Param.ofString("NCCL_TUNER_PLUGIN", "", TUNING,
            "tuner plugin class (ServiceLoader) to use; 'none' disables; unset: the first found"));
    public static final Param<Integer> MIN_NRINGS = add(Param.ofInt("NCCL_MIN_NRINGS", 0, TUNING,
            "old name of NCCL_MIN_NCHANNELS").range(0, 64));
    public static final Param<Integer> MAX_NRINGS = add(Param.ofInt("NCCL_MAX_NRINGS", 0, TUNING,
            "old name of NCCL_MAX_NCHANNELS").range(0, 64));

    static {
        String[][] host = {
            {"BASE_LAT_US", "per-operation latency of the host executor in µs"},
            {"SHM_LAT_US", "per-hop latency inside a host in µs"},
            {"SHM_BW_GBPS", "per-channel bandwidth inside a host in GB/s"},
            {"NET_LAT_US", "per-hop latency across hosts in µs"},
            {"NET_BW_GBPS", "per-channel bandwidth across hosts in GB/s"},
        };
        double[][] defaults = {{1.0, 1.5, 2.0}, {0.5, 0.8, 1.5}, {2.0, 5.0, 6.0}, {15.0, 15.0, 20.0}, {0.5, 1.2, 1.5}};
        String[] protos = {"LL", "LL128", "SIMPLE"};
        for (int w = 0; w < host.length; w++) {
            for (int p = 0; p < protos.length; p++) {
                add(Param.ofDouble("JCCL_HOST_" + host[w][0] + "_" + protos[p], defaults[w][p], TUNING,
                        "host cost model: " + host[w][1] + " for protocol " + protos[p]).range(0, Double.MAX_VALUE));
            }
        }
    }

    // ---- tools ---------------------------------------------------------------------------------------------
    public static final Param<Integer> PERF_JIT_WARMUP = add(Param.ofInt("JCCL_PERF_JIT_WARMUP", 1000, TOOLS,
            "jccl perf: calls per warm-up size (up to 1 MiB) before measuring, so the JIT has compiled the call path")
            .range(0, Integer.MAX_VALUE));
    public static final Param<Integer> PERF_JIT_WARMUP_MS = add(Param.ofInt("JCCL_PERF_JIT_WARMUP_MS", 1000, TOOLS,
            "jccl perf: the most time one warm-up (one size, in or out of place) may take, so slow calls (across "
                    + "hosts, on a time-sliced GPU) warm up with fewer calls; the first rows' warm-up stops after 4 "
                    + "times this").range(0, Integer.MAX_VALUE));
    public static final Param<Double> TESTS_MIN_BW = add(Param.ofDouble("NCCL_TESTS_MIN_BW", -1, TOOLS,
            "jccl perf: fail (exit 1) when the average bus bandwidth is below 90% of this many GB/s; negative: no "
                    + "check"));
    public static final Param<Boolean> TRACE = add(Param.ofBoolean("JCCL_TRACE", false, TOOLS,
            "tools print the stack trace of a failure, not only its message"));
    public static final Param<String> JAVA_OPTS = add(Param.ofString("JCCL_JAVA_OPTS", "", TOOLS,
            "extra JVM flags the jccl script passes to the tools, e.g. -Xmx8g").script());
    public static final Param<String> JDK_SEARCH = add(Param.ofString("JCCL_JDK_SEARCH", "", TOOLS,
            "directories or globs the jccl script searches for a JDK 25+ instead of the usual places").script());
    public static final Param<Integer> TEST_EMULATOR = add(Param.ofInt("JCCL_TEST_EMULATOR", 1, TOOLS,
            "0: ./jccl test skips the GPU tests on the CPU emulator of the CUDA driver").range(0, 1).script());
    public static final Param<String> PREBUILT_JAVA = add(Param.ofString("JCCL_JAVA", "", TOOLS,
            "the jccl script runs prebuilt jars (JCCL_LIB) with this java launcher, without a JDK or Maven").script());
    public static final Param<String> PREBUILT_LIB = add(Param.ofString("JCCL_LIB", "", TOOLS,
            "directory of prebuilt jars the jccl script runs with JCCL_JAVA (default .device/gpu/lib)").script());

    // ---- CUDA ----------------------------------------------------------------------------------------------
    public static final Param<String> NCCL_LIBRARY = add(Param.ofString("JCCL_NCCL_LIBRARY", "", CUDA,
            "path of libnccl.so.2 for the GPU benchmark's NCCL comparison (else -Djccl.nccl.library, the nvidia.nccl "
                    + "Python package, libnccl.so.2)"));
    public static final Param<String> CTA_POLICY = add(Param.ofString("NCCL_CTA_POLICY", "", CUDA,
            "GPU communicators: 2 (ZERO) runs allGather, allToAll and broadcast into a window on the copy engines, "
                    + "leaving every SM to compute; 0 default, 1 efficiency (no effect); -Djccl.cuda.ctaPolicy wins"));
    public static final Param<Integer> NVLS_ENABLE = add(Param.ofInt("NCCL_NVLS_ENABLE", 1, CUDA,
            "0: NCCL (in the GPU benchmark's comparison) does not use NVLink SHARP").range(0, 2));

    private ExternalParams() {
    }

    private static <T> Param<T> add(Param<T> p) {
        ALL.add(p);
        return p;
    }

    static List<Param<?>> all() {
        return Collections.unmodifiableList(ALL);
    }

    private static String level(String v) {
        String s = v.trim().toUpperCase(Locale.ROOT);
        if (s.matches("[0-5]") || List.of("LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS")
                .contains(s)) {
            return null;
        }
        return "is not a path type (" + LEVELS + ")";
    }
}
