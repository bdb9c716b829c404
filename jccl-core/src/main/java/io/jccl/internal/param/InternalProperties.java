package io.jccl.internal.param;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static io.jccl.internal.param.ParamCategory.CUDA;
import static io.jccl.internal.param.ParamCategory.INIT;
import static io.jccl.internal.param.ParamCategory.TOOLS;

/**
 * JCCL's internal tuning knobs: Java system properties ({@code -Djccl.spins=0}) read directly by the code they
 * steer, for experiments and measurements rather than for users. They are declared here so that
 * {@code ./jccl params --all} and the documentation list them; they may change without notice.
 *
 * <p>Owned by: any thread (immutable).
 */
public final class InternalProperties {
    private static final List<Param<?>> ALL = new ArrayList<>();

    static {
        add(Param.ofInt("jccl.spins", -1, INIT,
                "onSpinWait iterations before a waiting thread yields; -1: 50, or 0 when the host is oversubscribed"));
        add(Param.ofInt("jccl.yields", -1, INIT,
                "Thread.yield iterations before a waiting thread sleeps; -1: 5000, or 200 when oversubscribed"));
        add(Param.ofInt("jccl.proxySpins", -1, INIT,
                "empty proxy polls before the proxy thread sleeps in its selector; -1: 2000, or 0 when "
                        + "oversubscribed"));
        add(Param.ofBoolean("jccl.adaptiveSpin", false, INIT,
                "adapt each wait's spin budget to how waits ended (doubling/halving)"));
        add(Param.ofBoolean("jccl.futex.disable", false, INIT,
                "never sleep on a futex in shared memory (park instead; wake-ups then rely on polling)"));
        add(Param.ofLong("jccl.twoShotChunkBytes", 1L << 20, INIT,
                "bytes of each two-shot chunk (each rank's shared-area buffer holds one, a slice per rank)"));
        add(Param.ofBoolean("jccl.reduce.scalar", false, INIT,
                "use the scalar reduction loops instead of the Vector API ones"));
        add(Param.ofString("jccl.cuda.library", "libcuda.so.1", CUDA, "file name or path of the CUDA driver library"));
        add(Param.ofChoice("jccl.cuda.launch", "module", List.of("module", "library"), CUDA,
                "load kernels per context (module) or context-independently (library, cuLibraryLoadData)"));
        add(Param.ofBoolean("jccl.cuda.critical", false, CUDA,
                "mark driver downcalls critical (no thread state transition; for measurements)"));
        add(Param.ofString("jccl.cuda.algorithm", "auto", CUDA,
                "GpuCommunicator allReduce kernel: auto, ll, llpacked, ll128, push, oneshot, twoshot or ring"));
        for (String f : List.of("llMaxBytes", "llPackedMaxBytes", "pushMaxBytes", "pushChunkBytes", "pullFromBytes",
                "oneShotMaxBytes",
                "twoShotMaxBytes", "maxBlocks", "ringChannels", "ringSlotBytes", "ringChunkSteps", "packsPerThread",
                        "llPackedBlockGroups", "ll128MaxBytes",
                "pullUnroll", "ll128BlocksPerSm")) {
            add(Param.ofString("jccl.cuda." + f, "", CUDA, "GpuCommunicator option " + f
                    + " (see GpuOptions; unset: the measured default)"));
        }
        add(Param.ofBoolean("jccl.cuda.pdl", true, CUDA,
                "launch kernels with programmatic dependent launch (a kernel's blocks start as the previous one "
                        + "ends)"));
        add(Param.ofBoolean("jccl.cuda.pdlCapture", true, CUDA,
                "programmatic dependent launch inside CUDA graph captures too (false: plain launches there)"));
        add(Param.ofBoolean("jccl.cuda.pullGather", false, CUDA,
                "experiment: two-shot allReduce gathers the peers' reduced partitions by NVLink reads, not writes"));
        add(Param.ofLong("jccl.cuda.gatherStepBytes", 16L << 10, CUDA,
                "experiment: bytes per step of a block's slice in the reads-only two-shot (jccl.cuda.pullGather)"));
        add(Param.ofBoolean("jccl.cuda.fencedPublish", false, CUDA,
                "A/B only: the pull kernels publish their buffer pointers behind a release fence, as before"));
        add(Param.ofBoolean("jccl.cuda.shareDevices", false, CUDA,
                "testing: let GpuCommunicator.initAll put several ranks on one GPU (each rank's kernels get an equal"
                        + " share of its multiprocessors), so ring kernels can be checked on a machine with one GPU"));
        add(Param.ofString("jccl.cuda.cubinDir", "", CUDA,
                "directory of pre-assembled kernels (cubins); unset: JIT from the PTX"));
        add(Param.ofString("jccl.nccl.library", "", CUDA, "path of libnccl.so.2 when JCCL_NCCL_LIBRARY is unset"));
        add(Param.ofChoice("jccl.perf.trace", "", List.of("", "host", "segments", "calls"), TOOLS,
                "jccl perf on GPUs, stall diagnosis: per-loop host timings (host), two more events per loop (segments)"
                        + " or one per call (calls), printed on stderr"));
        add(Param.ofInt("jccl.perf.gpuJitWarmupCalls", 2000, TOOLS,
                "jccl perf on GPUs: untimed calls before each timed call of up to 4 MiB, for the JIT"));
        add(Param.ofBoolean("jccl.perf.alignLoops", false, TOOLS,
                "jccl perf on GPUs: a host barrier of the ranks between each warm-up and its timed loop"));
        add(Param.ofBoolean("jccl.perf.queryAfterLaunch", false, TOOLS,
                "jccl perf on GPUs: cuStreamQuery after every timed call"));
    }

    private InternalProperties() {
    }

    private static void add(Param<?> p) {
        ALL.add(p.property());
    }

    static List<Param<?>> all() {
        return Collections.unmodifiableList(ALL);
    }
}
