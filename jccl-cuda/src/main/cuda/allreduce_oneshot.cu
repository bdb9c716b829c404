// One-shot allReduce for N GPUs with peer pointers (pull): every GPU reads every rank's input directly over
// NVLink, reduces in fp32 in rank order, and writes its own output. A per-block barrier before (inputs are
// ready on every rank) and after (no rank still reads my input when my kernel ends, so the caller may reuse it).
// Not for in-place use: a peer could read my output (= my input) after I overwrote it; the host picks another
// algorithm then. The pattern of vLLM's cross_device_reduce_1stage / NCCL's symmetric one-shot, our own code.
#include "jccl_device.cuh"

namespace jccl {

template <typename T, typename Op>
__device__ __forceinline__ void oneShot(const AllReduceArgs& a) {
    if (!blockBarrier(a)) return;
    const T* src[kMaxRanks];
#pragma unroll
    for (int r = 0; r < kMaxRanks; r++) src[r] = reinterpret_cast<const T*>(a.in.p[r]);
    T* dst[1] = {reinterpret_cast<T*>(a.out.p[a.rank])};
    reduceCopy<T, Op, kMaxRanks, 1, 2>(src, a.nRanks, dst, 1, a.count,
                                       (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
                                       (uint64_t)gridDim.x * blockDim.x);
    blockBarrier(a);
}

}  // namespace jccl

JCCL_KERNELS(jccl_ar_oneshot, jccl::oneShot)
