// Two-shot allReduce (reduce-scatter by loads, all-gather by stores): rank r owns partition r of the buffer,
// reads that partition from every rank, reduces it in fp32 in rank order, and stores the result into the
// output of every rank (its own and, over NVLink, its peers'). A barrier before (inputs ready) and one after
// (all peers' stores into my output are visible, and nobody still reads my input). In-place safe: partition r
// of every buffer is read and written only by rank r, each element by one thread. NCCL's symmetric
// RSxLD_AGxST in shape, our own code.
#include "jccl_device.cuh"

namespace jccl {

template <typename T, typename Op>
__device__ __forceinline__ void twoShot(const AllReduceArgs& a) {
    constexpr uint64_t PE = 16 / sizeof(T);
    if (!blockBarrier(a)) return;
    const uint64_t per = (a.count + a.nRanks - 1) / a.nRanks;
    const uint64_t part = (per + PE - 1) / PE * PE;
    const uint64_t start = min((uint64_t)a.rank * part, a.count);
    const uint64_t end = min(start + part, a.count);
    const T* src[kMaxRanks];
    T* dst[kMaxRanks];
#pragma unroll
    for (int r = 0; r < kMaxRanks; r++) {
        src[r] = reinterpret_cast<const T*>(a.in.p[r]) + start;
        dst[r] = reinterpret_cast<T*>(a.out.p[r]) + start;
    }
    reduceCopy<T, Op, kMaxRanks, kMaxRanks, 2>(src, a.nRanks, dst, a.nRanks, end - start,
                                               (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
                                               (uint64_t)gridDim.x * blockDim.x);
    blockBarrier(a);
}

}  // namespace jccl

JCCL_KERNELS(jccl_ar_twoshot, jccl::twoShot)
