/**
 * JCCL on NVIDIA GPUs: the CUDA driver API through the Foreign Function &amp; Memory API (no JNI, no native build),
 * device buffers, streams, events, CUDA graphs, and GPU communicators ({@link io.jccl.cuda.GpuCommunicator}).
 * Exported: {@code io.jccl.cuda} and the NCCL binding used for comparisons ({@code io.jccl.cuda.nccl}); driver bindings
 * and kernels are internal.
 */
module io.jccl.cuda {
    requires transitive io.jccl;
    requires jdk.jfr;
    exports io.jccl.cuda;
    exports io.jccl.cuda.nccl;
}
