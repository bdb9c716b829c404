// Barrier-free one-shot allReduce for small messages (LL protocol, push): every thread sends each 8-byte word of
// its rank's input to every peer as one 16-byte line {lo, flag, hi, flag} (one volatile v4 store over NVLink)
// into slot [parity][myRank][word] of the peer's LL area, then polls its own area until both flags of each
// peer's line equal this call's epoch, and reduces in rank order. One-way NVLink latency, no round trip.
// Epoch: kept in device memory (Signals.llEpoch, graph-replay safe), advanced by the last block to finish;
// parity = epoch & 1 double-buffers the area: a peer can only write parity p again for epoch e+2 after it has
// received my packets of e+1, so after my kernel e has finished reading. Epochs skip 0 and 1 when they wrap
// (flag 0 = never written) and the two calls before the wrap clear their parity, so no stale flag can match.
// NCCL's LL line format and symmetric AGxLL_R kernel in shape, our own code.
#include "jccl_device.cuh"

namespace jccl {

constexpr uint32_t kLLClearFrom = 0xFFFFFFFEu;

__device__ __forceinline__ char* llLine(void* area, int parity, int nRanks, int src, uint64_t slotWords, uint64_t w) {
    return reinterpret_cast<char*>(area) + (((uint64_t)parity * nRanks + src) * slotWords + w) * 16;
}

template <typename T>
__device__ __forceinline__ uint64_t llLoadWord(const T* in, uint64_t w, uint64_t count) {
    constexpr int EW = 8 / sizeof(T);
    if ((reinterpret_cast<uintptr_t>(in) & 7) == 0 && (w + 1) * EW <= count)
        return *reinterpret_cast<const uint64_t*>(in + w * EW);
    uint64_t v = 0;
    T* e = reinterpret_cast<T*>(&v);
#pragma unroll
    for (int k = 0; k < EW; k++)
        if (w * EW + k < count) e[k] = in[w * EW + k];
    return v;
}

template <typename T, typename Op>
__device__ __forceinline__ void oneShotLL(const AllReduceArgs& a) {
    constexpr int EW = 8 / sizeof(T);
    Signals* self = reinterpret_cast<Signals*>(a.sig.p[a.rank]);
    __shared__ uint32_t sEpoch;
    __shared__ int sLast;
    if (threadIdx.x == 0) {
        uint32_t e = *reinterpret_cast<volatile uint32_t*>(&self->llEpoch);
        sEpoch = e == 0xFFFFFFFFu ? 2u : e + 1u;
    }
    __syncthreads();
    const uint32_t epoch = sEpoch;
    const int parity = epoch & 1;
    const int N = a.nRanks, r = a.rank;
    const uint64_t nWords = (a.count + EW - 1) / EW;
    const uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    const T* in = reinterpret_cast<const T*>(a.in.p[r]);
    T* out = reinterpret_cast<T*>(a.out.p[r]);

    for (uint64_t w = tid; w < nWords; w += stride) {
        const uint64_t v = llLoadWord(in, w, a.count);
#pragma unroll
        for (int p = 0; p < kMaxRanks; p++)
            if (p < N && p != r) storeLL(llLine(a.ll.p[p], parity, N, r, a.llSlotWords, w), v, epoch);
    }

    bool aborted = false;
    for (uint64_t w = tid; w < nWords && !aborted; w += stride) {
        uint64_t vals[kMaxRanks];
#pragma unroll
        for (int p = 0; p < kMaxRanks; p++) {
            if (p < N) {
                if (p == r) {
                    vals[p] = llLoadWord(in, w, a.count);
                } else {
                    const char* line = llLine(a.ll.p[r], parity, N, p, a.llSlotWords, w);
                    uint32_t spins = 0;
                    while (!loadLL(line, epoch, &vals[p])) {
                        if (++spins == kSpinsBeforeAbortCheck) {
                            spins = 0;
                            if (abortRequested(a.abortFlag)) { aborted = true; break; }
                        }
                    }
                }
            }
        }
        if (aborted) break;
        float acc[EW];
#pragma unroll
        for (int p = 0; p < kMaxRanks; p++) {
            if (p < N) {
                const T* e = reinterpret_cast<const T*>(&vals[p]);
#pragma unroll
                for (int k = 0; k < EW; k++) {
                    float x = Elem<T>::toF(e[k]);
                    acc[k] = p == 0 ? x : Op::apply(acc[k], x);
                }
            }
        }
        uint64_t res;
        T* e = reinterpret_cast<T*>(&res);
#pragma unroll
        for (int k = 0; k < EW; k++) e[k] = Elem<T>::fromF(acc[k]);
        if ((reinterpret_cast<uintptr_t>(out) & 7) == 0 && (w + 1) * EW <= a.count) {
            *reinterpret_cast<uint64_t*>(out + w * EW) = res;
        } else {
#pragma unroll
            for (int k = 0; k < EW; k++)
                if (w * EW + k < a.count) out[w * EW + k] = e[k];
        }
    }

    // The last block to finish advances the epoch (and, just before a wrap, clears this parity of my area).
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        const uint32_t ticket = atomicAdd(&self->llDone, 1u);
        sLast = ticket == gridDim.x - 1;
        if (sLast) {
            self->llDone = 0;
            self->llEpoch = epoch;
        }
    }
    __syncthreads();
    if (sLast && epoch >= kLLClearFrom) {
        uint4* area = reinterpret_cast<uint4*>(llLine(a.ll.p[r], parity, N, 0, a.llSlotWords, 0));
        const uint64_t lines = (uint64_t)N * a.llSlotWords;
        for (uint64_t i = threadIdx.x; i < lines; i += blockDim.x) area[i] = make_uint4(0, 0, 0, 0);
    }
}

}  // namespace jccl

JCCL_KERNELS(jccl_ar_ll, jccl::oneShotLL)
