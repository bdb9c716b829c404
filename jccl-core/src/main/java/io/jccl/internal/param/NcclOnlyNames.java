package io.jccl.internal.param;

import java.util.List;
import java.util.Set;

/**
 * NCCL variables that JCCL recognises but does not implement (InfiniBand, NVLS, CollNet, CUDA-memory and kernel
 * launch settings, PyTorch's NCCL switches): a job ported from NCCL often carries them, so they are reported as
 * having no effect (at INFO) rather than as unknown (a WARN meant for typos).
 *
 * <p>Owned by: any thread (constant).
 */
final class NcclOnlyNames {
    /** Whole families, by prefix. */
    static final List<String> PREFIXES = List.of("NCCL_IB_", "NCCL_NET_", "NCCL_NVLS_", "NCCL_COLLNET_", "NCCL_RAS_",
            "NCCL_GIN_", "NCCL_SYM_", "NCCL_CUMEM_", "NCCL_MNNVL_", "NCCL_UCX_", "NCCL_SOCKET_", "NCCL_TESTS_",
            "NCCL_P2P_", "NCCL_SHM_", "NCCL_PAT_", "NCCL_RMA_", "NCCL_EP_", "NCCL_CHECKPOINT_", "NCCL_NVTX_");

    /** Single names. */
    static final Set<String> NAMES = Set.of("NCCL_PROFILER_PLUGIN", "NCCL_ENV_PLUGIN", "NCCL_LAUNCH_MODE",
            "NCCL_NCHANNELS", "NCCL_RUNTIME_CONNECT", "NCCL_NO_CACHE", "NCCL_CHECKS_DISABLE",
            "NCCL_CHECK_POINTERS", "NCCL_ASYNC_ERROR_HANDLING", "NCCL_BLOCKING_WAIT", "NCCL_LL_BUFFSIZE",
            "NCCL_LL128_BUFFSIZE", "NCCL_IGNORE_CPU_AFFINITY", "NCCL_WORK_FIFO_BYTES", "NCCL_WORK_ARGS_BYTES",
            "NCCL_ENQUEUE_REARCH_ENABLE", "NCCL_GRAPH_MIXING_SUPPORT", "NCCL_LOCAL_REGISTER", "NCCL_GRAPH_REGISTER",
            "NCCL_SET_THREAD_NAME", "NCCL_SET_STACK_SIZE", "NCCL_MAX_CTAS", "NCCL_MIN_CTAS", "NCCL_CGA_CLUSTER_SIZE",
            "NCCL_COMM_BLOCKING", "NCCL_SINGLE_PROC_MEM_REG_ENABLE", "NCCL_UID_STAGGER_THRESHOLD",
            "NCCL_UID_STAGGER_RATE", "NCCL_OOB_NET_ENABLE", "NCCL_OOB_NET_IFNAME", "NCCL_IGNORE_NET_MISMATCH",
            "NCCL_MULTI_RANK_GPU_ENABLE", "NCCL_DMABUF_ENABLE", "NCCL_GDRCOPY_ENABLE", "NCCL_PXN_C2C",
            "NCCL_NVLINK_ENABLE", "NCCL_WIN_ENABLE", "NCCL_ALLOC_P2P_NET_LL_BUFFERS", "NCCL_PROGRESS_APPENDOP_FREQ",
            "NCCL_PROXY_APPEND_BATCH_SIZE", "NCCL_CREATE_THREAD_CONTEXT", "NCCL_SYM_KERNEL", "NCCL_HOME",
            "NCCL_LIB_DIR", "NCCL_INCLUDE_DIR", "NCCL_VERSION", "NCCL_ROOT", "NCCL_DEBUG_TIMESTAMP_FORMAT",
            "NCCL_DEBUG_TIMESTAMP_LEVELS", "NCCL_MAX_P2P_NCHANNELS", "NCCL_MIN_P2P_NCHANNELS", "NCCL_NVB_PRECONNECT",
            "NCCL_ALGO_OVERRIDE", "NCCL_CONNECT_ROUND_SIZE", "NCCL_CUDA_PATH", "NCCL_LL128_ENABLE");

    private NcclOnlyNames() {
    }

    /** True for an NCCL variable JCCL knows of but ignores (by name or family; a near-miss of a declared name is a
     * typo, which the caller checks first). */
    static boolean contains(String name) {
        if (NAMES.contains(name)) {
            return true;
        }
        for (String p : PREFIXES) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }
}
