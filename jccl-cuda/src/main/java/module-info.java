/**
 * JCCL on NVIDIA GPUs: the CUDA driver API through the Foreign Function &amp; Memory API (no JNI, no native build),
 * device buffers, streams, events, CUDA graphs, and a single-process multi-GPU allReduce ({@link io.jccl.cuda.GpuClique}).
 * Only {@code io.jccl.cuda} is exported; bindings, kernels and the NCCL comparison code are internal.
 */
module io.jccl.cuda {
    requires transitive io.jccl;
    exports io.jccl.cuda;
}
