// One-shot allReduce by NVLink writes (push): block b of every rank owns the same contiguous slice of the
// buffer; it stores its rank's slice of the input into slot [parity][myRank] of every peer's push area (posted
// writes, which NVLink moves more efficiently than reads), meets block b of every peer in one barrier (release/
// acquire: the data was written in this kernel), then reduces its slice from local memory only — its own input
// and the peers' copies — in rank order, into its output. One barrier per call, no end barrier: peers never
// touch my input or output. parity = (number of push calls so far) & 1, kept in device memory (graph-safe): a
// peer writes parity p again only two push calls later, after it has passed a call with me in which I had
// finished reading p (every JCCL kernel needs all ranks present). In-place safe. TRT-LLM's PUSH_MODE one-shot
// in shape, our own code.
#include "jccl_device.cuh"

namespace jccl {

template <typename T, typename Op>
__device__ __forceinline__ void oneShotPush(const AllReduceArgs& a) {
    constexpr uint64_t PE = 16 / sizeof(T);
    Signals* self = reinterpret_cast<Signals*>(a.sig.p[a.rank]);
    __shared__ uint32_t sEpoch;
    if (threadIdx.x == 0) sEpoch = *reinterpret_cast<volatile uint32_t*>(&self->pushEpoch) + 1u;
    __syncthreads();
    const uint32_t epoch = sEpoch;
    const uint64_t parity = epoch & 1u;
    const int N = a.nRanks, r = a.rank;
    const uint64_t per = ((a.count + gridDim.x - 1) / gridDim.x + PE - 1) / PE * PE;
    const uint64_t start = min((uint64_t)blockIdx.x * per, a.count);
    const uint64_t n = min(start + per, a.count) - start;
    const uint64_t offBytes = start * sizeof(T);
    const T* in = reinterpret_cast<const T*>(a.in.p[r]) + start;

    // Phase 1: my slice to every peer's slot [parity][r].
    {
        const T* src[1] = {in};
        T* dst[kMaxRanks];
#pragma unroll
        for (int p = 0; p < kMaxRanks; p++) {
            dst[p] = p == r ? nullptr
                            : reinterpret_cast<T*>(reinterpret_cast<char*>(a.push.p[p])
                                                   + (parity * N + r) * a.pushSlotBytes + offBytes);
        }
        reduceCopy<T, Op, 1, kMaxRanks, 4>(src, 1, dst, N, n, threadIdx.x, blockDim.x);
    }
    const bool ok = blockBarrier(a);

    // Phase 2: reduce the slice from local memory.
    if (ok) {
        const char* mine = reinterpret_cast<const char*>(a.push.p[r]);
        const T* src[kMaxRanks];
#pragma unroll
        for (int p = 0; p < kMaxRanks; p++) {
            src[p] = p == r ? in : reinterpret_cast<const T*>(mine + (parity * N + p) * a.pushSlotBytes + offBytes);
        }
        T* dst[1] = {reinterpret_cast<T*>(a.out.p[r]) + start};
        reduceCopy<T, Op, kMaxRanks, 1, 2>(src, N, dst, 1, n, threadIdx.x, blockDim.x);
    }

    // The last block to finish records this call's epoch.
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&self->pushDone, 1u) == gridDim.x - 1) {
            self->pushDone = 0;
            self->pushEpoch = epoch;
        }
    }
}

}  // namespace jccl

JCCL_KERNELS(jccl_ar_push, jccl::oneShotPush)
