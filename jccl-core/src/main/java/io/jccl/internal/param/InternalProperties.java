package io.jccl.internal.param;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static io.jccl.internal.param.ParamCategory.CUDA;
import static io.jccl.internal.param.ParamCategory.INIT;
import static io.jccl.internal.param.ParamCategory.TOOLS;

/**
 * JCCL's internal tuning knobs: Java system properties ({@code -Djccl.spins=0}) for experiments and measurements
 * rather than for users. The code they steer reads them through these declarations (a value that does not parse is
 * refused naming the property, never ignored), and {@code ./jccl params --all} and the documentation list them; they
 * may change without notice.
 *
 * <p>Owned by: any thread (immutable).
 */
public final class InternalProperties {
    private static final List<Param<?>> ALL = new ArrayList<>();

    public static final Param<Integer> SPINS = add(Param.ofInt("jccl.spins", -1, INIT,
            "onSpinWait iterations before a waiting thread yields; -1: 50, or 0 when the host is oversubscribed"));
    public static final Param<Integer> YIELDS = add(Param.ofInt("jccl.yields", -1, INIT,
            "Thread.yield iterations before a waiting thread sleeps; -1: 5000, or 200 when oversubscribed"));
    public static final Param<Integer> PROXY_SPINS = add(Param.ofInt("jccl.proxySpins", -1, INIT,
            "empty proxy polls before the proxy thread sleeps in its selector; -1: 2000, or 0 when "
                    + "oversubscribed"));
    public static final Param<Boolean> ADAPTIVE_SPIN = add(Param.ofBoolean("jccl.adaptiveSpin", false, INIT,
            "adapt each wait's spin budget to how waits ended (doubling/halving)"));
    public static final Param<Boolean> FUTEX_DISABLE = add(Param.ofBoolean("jccl.futex.disable", false, INIT,
            "never sleep on a futex in shared memory (park instead; wake-ups then rely on polling)"));
    public static final Param<Long> TWO_SHOT_CHUNK_BYTES = add(Param.ofLong("jccl.twoShotChunkBytes", 1L << 20, INIT,
            "bytes of each two-shot chunk (each rank's shared-area buffer holds one, a slice per rank)"));
    public static final Param<Boolean> REDUCE_SCALAR = add(Param.ofBoolean("jccl.reduce.scalar", false, INIT,
            "use the scalar reduction loops instead of the Vector API ones"));
    public static final Param<String> CUDA_LIBRARY = add(Param.ofString("jccl.cuda.library", "libcuda.so.1", CUDA,
            "file name or path of the CUDA driver library"));
    public static final Param<String> CUDA_LAUNCH = add(Param.ofChoice("jccl.cuda.launch", "module", List.of("module",
            "library"), CUDA,
            "load kernels per context (module) or context-independently (library, cuLibraryLoadData)"));
    public static final Param<String> CUDA_COPY_ENGINE_WAITS = add(Param.ofChoice("jccl.cuda.copyEngineWaits",
            "stream", List.of("stream", "kernel"), CUDA,
            "how the copy-engine collectives (NCCL_CTA_POLICY=2) and eager putSignal/waitSignal signal and wait:"
                    + " stream memory operations, which take no SM (stream), or one-warp kernels (kernel)"));
    public static final Param<Boolean> CUDA_COPY_ENGINE_BATCH = add(Param.ofBoolean("jccl.cuda.copyEngineBatch", true,
            CUDA, "the copy-engine collectives and eager putSignal copy with cuMemcpyBatchAsync asking the driver to"
                    + " keep the copies off the SMs (PREFER_OVERLAP_WITH_COMPUTE, CUDA 12.8+ drivers, as NCCL);"
                    + " false: cuMemcpyAsync, which may copy within a GPU with a kernel"));
    public static final Param<Boolean> CUDA_CRITICAL = add(Param.ofBoolean("jccl.cuda.critical", false, CUDA,
            "mark driver downcalls critical (no thread state transition; for measurements)"));
    public static final Param<String> CUDA_ALGORITHM = add(Param.ofString("jccl.cuda.algorithm", "auto", CUDA,
            "GpuCommunicator allReduce kernel: auto, ll, llpacked, ll128, push, oneshot, twoshot or ring"));
    public static final Param<Boolean> CUDA_PDL = add(Param.ofBoolean("jccl.cuda.pdl", true, CUDA,
            "launch kernels with programmatic dependent launch (a kernel's blocks start as the previous one "
                    + "ends)"));
    public static final Param<Boolean> CUDA_PDL_CAPTURE = add(Param.ofBoolean("jccl.cuda.pdlCapture", true, CUDA,
            "programmatic dependent launch inside CUDA graph captures too (false: plain launches there)"));
    public static final Param<Boolean> CUDA_PULL_GATHER = add(Param.ofBoolean("jccl.cuda.pullGather", false, CUDA,
            "experiment: two-shot allReduce gathers the peers' reduced partitions by NVLink reads, not writes"));
    public static final Param<Long> CUDA_GATHER_STEP_BYTES = add(Param.ofLong("jccl.cuda.gatherStepBytes", 16L << 10,
            CUDA,
            "experiment: bytes per step of a block's slice in the reads-only two-shot (jccl.cuda.pullGather)"));
    public static final Param<Boolean> CUDA_FENCED_PUBLISH = add(Param.ofBoolean("jccl.cuda.fencedPublish", false, CUDA,
            "A/B only: the pull kernels publish their buffer pointers behind a release fence, as before"));
    public static final Param<Integer> CUDA_NET_CHANNELS = add(Param.ofInt("jccl.cuda.netChannels", 2, CUDA,
            "channels of a GPU communicator whose ranks span hosts (each a send and a receive connector per peer "
                    + "and 8 FIFO slots of pinned host memory each way)").range(1, 32));
    public static final Param<Integer> CUDA_NET_SLOT_KIB = add(Param.ofInt("jccl.cuda.netSlotKiB", 0, CUDA,
            "KiB of one FIFO slot of a GPU communicator whose ranks span hosts (8 slots per channel, connection and "
                    + "direction; a step sends only the bytes its kernel wrote); 0: the largest power of two from 128 "
                    + "to 2048 KiB whose slots fit 128 MiB of pinned memory per rank")
            .checkedBy(v -> v == 0 || (v >= 4 && v <= 4096) ? null : "must be 0 or within 4..4096", "0|4..4096"));
    public static final Param<Boolean> CUDA_SHARE_DEVICES = add(Param.ofBoolean("jccl.cuda.shareDevices", false, CUDA,
            "testing: let GpuCommunicator.initAll put several ranks on one GPU (each rank's kernels get an equal"
                    + " share of its multiprocessors), so ring kernels can be checked on a machine with one GPU"));
    public static final Param<String> CUDA_CUBIN_DIR = add(Param.ofString("jccl.cuda.cubinDir", "", CUDA,
            "directory of pre-assembled kernels (cubins); unset: JIT from the PTX"));
    public static final Param<String> NVML_LIBRARY = add(Param.ofString("jccl.nvml.library", "libnvidia-ml.so.1",
            CUDA, "file name or path of NVML (the NVLink and topology queries)"));
    public static final Param<String> NCCL_LIBRARY = add(Param.ofString("jccl.nccl.library", "", CUDA,
            "path of libnccl.so.2 when JCCL_NCCL_LIBRARY is unset"));
    public static final Param<String> PERF_TRACE = add(Param.ofChoice("jccl.perf.trace", "", List.of("", "host",
            "segments", "calls"), TOOLS,
            "jccl perf on GPUs, stall diagnosis: per-loop host timings (host), two more events per loop (segments)"
                    + " or one per call (calls), printed on stderr"));
    public static final Param<Integer> PERF_GPU_JIT_WARMUP_CALLS = add(Param.ofInt("jccl.perf.gpuJitWarmupCalls", 2000,
            TOOLS,
            "jccl perf on GPUs: untimed calls before each timed call of up to 4 MiB, for the JIT"));
    public static final Param<Boolean> PERF_ALIGN_LOOPS = add(Param.ofBoolean("jccl.perf.alignLoops", false, TOOLS,
            "jccl perf on GPUs: a host barrier of the ranks between each warm-up and its timed loop"));
    public static final Param<Boolean> PERF_QUERY_AFTER_LAUNCH = add(Param.ofBoolean("jccl.perf.queryAfterLaunch",
            false, TOOLS,
            "jccl perf on GPUs: cuStreamQuery after every timed call"));

    /** The GpuOptions fields settable as {@code jccl.cuda.<field>}, by field name. */
    private static final java.util.Map<String, Param<String>> CUDA_OPTIONS = new java.util.LinkedHashMap<>();

    static {
        for (String f : List.of("llMaxBytes", "llPackedMaxBytes", "pushMaxBytes", "pushChunkBytes", "pullFromBytes",
                "oneShotMaxBytes",
                "twoShotMaxBytes", "maxBlocks", "ringChannels", "ringSlotBytes", "ringChunkSteps", "packsPerThread",
                        "llPackedBlockGroups", "ll128MaxBytes",
                "pullUnroll", "ll128BlocksPerSm", "ctaPolicy")) {
            CUDA_OPTIONS.put(f, add(Param.ofString("jccl.cuda." + f, "", CUDA, "GpuCommunicator option " + f
                    + " (see GpuOptions; unset: the measured default)")));
        }
    }

    private InternalProperties() {
    }

    private static <T> Param<T> add(Param<T> p) {
        Param<T> prop = p.property();
        ALL.add(prop);
        return prop;
    }

    /** The {@code jccl.cuda.<field>} property of GpuOptions field {@code field}. */
    public static Param<String> cudaOption(String field) {
        Param<String> p = CUDA_OPTIONS.get(field);
        if (p == null) {
            throw new IllegalArgumentException("no GpuOptions property jccl.cuda." + field);
        }
        return p;
    }

    static List<Param<?>> all() {
        return Collections.unmodifiableList(ALL);
    }
}
