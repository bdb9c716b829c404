/**
 * JCCL on NVIDIA GPUs: the CUDA driver API through the Foreign Function &amp; Memory API (no JNI, no native build),
 * device buffers, streams, events, CUDA graphs, and GPU communicators ({@link io.jccl.cuda.GpuCommunicator}).
 * Exported: {@code io.jccl.cuda}; driver bindings and kernels are internal.
 */
// the qualified exports name io.jccl.tools, which is not built yet when this module compiles
@SuppressWarnings("module")
module io.jccl.cuda {
    requires transitive io.jccl;
    requires jdk.jfr;
    exports io.jccl.cuda;
    exports io.jccl.cuda.internal.comm to io.jccl.tools;
    exports io.jccl.cuda.internal.enqueue to io.jccl.tools;
    exports io.jccl.cuda.internal.ffm to io.jccl.tools;
}
