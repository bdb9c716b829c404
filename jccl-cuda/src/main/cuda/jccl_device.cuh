// JCCL device-side building blocks shared by every collective kernel: the argument block, element types and
// reduction operators, 16-byte packs, system-scope flags, the abort check, the per-block cross-GPU barrier and
// the block/grid-wide reduceCopy loop. Mirrors the roles of NCCL's src/device/{common.h,reduce_kernel.h,
// common_kernel.h} (written from our notes, not from NCCL's code).
//
// Memory model rules used throughout (see shared/reference/gpu-collectives-techniques.md §2.2):
//  - a flag that publishes data written earlier in the same kernel is stored with release semantics at .sys
//    scope after a __syncthreads(), and read with acquire semantics at .sys scope before a __syncthreads();
//  - data produced by peers is read with ld.global.cg (L2 only) so a stale L1 line can never be returned;
//  - spin loops never use plain loads and check the host-mapped abort word every kSpinsBeforeAbortCheck spins.
#pragma once

#include <stdint.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

namespace jccl {

constexpr int kMaxRanks = 8;
constexpr int kMaxBlocks = 128;            // barrier slots per (rank, peer); grids never exceed this
constexpr int kThreads = 512;              // every collective kernel runs 512 threads per block
constexpr int kFifoSteps = 8;              // NCCL_STEPS: slots per ring FIFO
constexpr uint32_t kSpinsBeforeAbortCheck = 1024;

// A table of one pointer per rank, passed by value inside AllReduceArgs.
struct PtrTable {
    void* p[kMaxRanks];
};

// Per-GPU signal area (device memory, zeroed once when the clique opens).
// arrive[b][peer] is written by `peer` (its barrier count for block b); count[b][peer] is local.
struct Signals {
    uint32_t arrive[kMaxBlocks][kMaxRanks];
    uint32_t count[kMaxBlocks][kMaxRanks];
    uint32_t llEpoch;                      // last epoch used by the LL kernel (same on every rank)
    uint32_t llDone;                       // blocks of the current LL kernel that finished
    uint32_t pushEpoch;                    // calls of the push one-shot kernel so far (same on every rank)
    uint32_t pushDone;                     // blocks of the current push kernel that finished
    uint32_t pad[28];
};

// Per-channel ring connection state, three 128-byte lines, in the memory of the GPU that owns it.
//  tail: written by the previous rank (my sender) = number of steps it has filled in my FIFO;
//  head: written by the next rank (my receiver) = number of steps it has consumed from its FIFO (credits);
//  sendStep/recvStep: my own progress, persisted between kernels so counters never reset.
struct RingCtl {
    uint64_t tail;
    uint64_t pad0[15];
    uint64_t head;
    uint64_t pad1[15];
    uint64_t sendStep;
    uint64_t recvStep;
    uint64_t pad2[14];
};

// The single by-value kernel argument of every allReduce kernel. Java writes it field by field
// (io.jccl.cuda.internal.clique.AllReduceArgs); its size is checked against the PTX .param size by a test.
struct AllReduceArgs {
    PtrTable in;                 //   0: every rank's input buffer
    PtrTable out;                //  64: every rank's output buffer
    PtrTable sig;                // 128: every rank's Signals
    PtrTable ll;                 // 192: every rank's LL receive area
    PtrTable push;               // 256: every rank's push scratch area
    uint64_t count;              // 320: elements
    const volatile int* abortFlag; // 328: host-mapped abort word (non-zero = abort)
    int32_t rank;                // 336
    int32_t nRanks;              // 340
    RingCtl* ctlMine;            // 344: my RingCtl[channels]
    char* fifoMine;              // 352: my FIFO: [channel][kFifoSteps][slotBytes]
    RingCtl* ctlNext;            // 360: next rank's RingCtl[]
    char* fifoNext;              // 368: next rank's FIFO
    RingCtl* ctlPrev;            // 376: previous rank's RingCtl[]
    uint64_t slotBytes;          // 384: bytes per FIFO slot
    uint64_t chunkElems;         // 392: ring chunk (elements, multiple of a pack)
    uint64_t llSlotWords;        // 400: 8-byte words per (parity, source rank) in the LL area
    uint64_t pushSlotBytes;      // 408: bytes per (parity, source rank) in the push area
};                               // 416 bytes

// ---------------------------------------------------------------------------------------------------------
// Element types: every reduction is computed in fp32 and rounded once when stored.
template <typename T> struct Elem;
template <> struct Elem<float> {
    typedef uint32_t Bits;
    static __device__ __forceinline__ float toF(float x) { return x; }
    static __device__ __forceinline__ float fromF(float x) { return x; }
};
template <> struct Elem<__half> {
    typedef unsigned short Bits;
    static __device__ __forceinline__ float toF(__half x) { return __half2float(x); }
    static __device__ __forceinline__ __half fromF(float x) { return __float2half_rn(x); }
};
template <> struct Elem<__nv_bfloat16> {
    typedef unsigned short Bits;
    static __device__ __forceinline__ float toF(__nv_bfloat16 x) { return __bfloat162float(x); }
    static __device__ __forceinline__ __nv_bfloat16 fromF(float x) { return __float2bfloat16_rn(x); }
};

struct OpSum  { static __device__ __forceinline__ float apply(float a, float b) { return a + b; } };
struct OpProd { static __device__ __forceinline__ float apply(float a, float b) { return a * b; } };
struct OpMin  { static __device__ __forceinline__ float apply(float a, float b) { return fminf(a, b); } };
struct OpMax  { static __device__ __forceinline__ float apply(float a, float b) { return fmaxf(a, b); } };

// ---------------------------------------------------------------------------------------------------------
// Loads and stores.
__device__ __forceinline__ uint4 loadPack(const void* p) { return __ldcg(reinterpret_cast<const uint4*>(p)); }
__device__ __forceinline__ void storePack(void* p, uint4 v) { *reinterpret_cast<uint4*>(p) = v; }

template <typename T>
__device__ __forceinline__ T loadElem(const T* p) {
    typedef typename Elem<T>::Bits Bits;
    Bits b = __ldcg(reinterpret_cast<const Bits*>(p));
    return *reinterpret_cast<T*>(&b);
}

__device__ __forceinline__ void stReleaseSys(uint32_t* p, uint32_t v) {
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ldAcquireSys(const uint32_t* p) {
    uint32_t v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void stRelaxedSys64(uint64_t* p, uint64_t v) {
    asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ uint64_t ldAcquireSys64(const uint64_t* p) {
    uint64_t v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void fenceAcqRelSys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

// LL line: {data0, flag, data1, flag}, written and read as one 16-byte volatile access.
__device__ __forceinline__ void storeLL(void* p, uint64_t data, uint32_t flag) {
    asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"((uint32_t)data), "r"(flag),
                 "r"((uint32_t)(data >> 32)), "r"(flag)
                 : "memory");
}
__device__ __forceinline__ bool loadLL(const void* p, uint32_t flag, uint64_t* data) {
    uint32_t d0, f0, d1, f1;
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(d0), "=r"(f0), "=r"(d1), "=r"(f1)
                 : "l"(p)
                 : "memory");
    *data = ((uint64_t)d1 << 32) | d0;
    return f0 == flag && f1 == flag;
}

__device__ __forceinline__ bool abortRequested(const volatile int* abortFlag) { return *abortFlag != 0; }

// ---------------------------------------------------------------------------------------------------------
// Per-block cross-GPU barrier with monotonic counters (no resets, wrap-safe "at least" compare).
// Block b of every rank must call it the same number of times; every rank launches the same grid.
// Returns false on every thread of the block when the host raised the abort word.
__device__ __forceinline__ bool blockBarrier(const AllReduceArgs& a) {
    Signals* self = reinterpret_cast<Signals*>(a.sig.p[a.rank]);
    const int t = threadIdx.x;
    const int b = blockIdx.x;
    int ok = 1;
    __syncthreads();
    if (t < a.nRanks && t != a.rank) {
        uint32_t v = self->count[b][t] + 1;
        self->count[b][t] = v;
        Signals* peer = reinterpret_cast<Signals*>(a.sig.p[t]);
        stReleaseSys(&peer->arrive[b][a.rank], v);
        uint32_t spins = 0;
        while ((int32_t)(ldAcquireSys(&self->arrive[b][t]) - v) < 0) {
            if (++spins == kSpinsBeforeAbortCheck) {
                spins = 0;
                if (abortRequested(a.abortFlag)) { ok = 0; break; }
            }
        }
    }
    return __syncthreads_and(ok) != 0;
}

// ---------------------------------------------------------------------------------------------------------
// dst[d][i] = op over s of src[s][i], for i in [0, n), for every d < nDst; the sources are combined in index
// order (the same order on every rank, so every rank computes bitwise the same value); a null dst[d] is
// skipped. Work is spread over
// `nThreads` threads numbered `tid`. 16-byte packs when every pointer is 16-byte aligned, scalars otherwise
// and for the tail. UNROLL packs per thread are loaded before any is reduced, to keep loads in flight.
template <typename T, typename Op, int MAXSRC, int MAXDST, int UNROLL>
__device__ __forceinline__ void reduceCopy(const T* const* src, int nSrc, T* const* dst, int nDst, uint64_t n,
                                           uint64_t tid, uint64_t nThreads) {
    constexpr int PE = 16 / sizeof(T);
    uintptr_t bits = 0;
#pragma unroll
    for (int s = 0; s < MAXSRC; s++) if (s < nSrc) bits |= reinterpret_cast<uintptr_t>(src[s]);
#pragma unroll
    for (int d = 0; d < MAXDST; d++) if (d < nDst) bits |= reinterpret_cast<uintptr_t>(dst[d]);
    const uint64_t nPacks = (bits & 15) == 0 ? n / PE : 0;

    for (uint64_t base = tid; base < nPacks; base += nThreads * UNROLL) {
        // Issue every load (all sources, all unrolled packs) before the first use.
        uint4 v[MAXSRC][UNROLL];
#pragma unroll
        for (int s = 0; s < MAXSRC; s++) {
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                const uint64_t i = base + u * nThreads;
                v[s][u] = (s < nSrc && i < nPacks) ? loadPack(src[s] + i * PE) : make_uint4(0, 0, 0, 0);
            }
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const uint64_t i = base + u * nThreads;
            float acc[PE];
#pragma unroll
            for (int s = 0; s < MAXSRC; s++) {
                if (s < nSrc) {
                    const T* e = reinterpret_cast<const T*>(&v[s][u]);
#pragma unroll
                    for (int k = 0; k < PE; k++) {
                        const float x = Elem<T>::toF(e[k]);
                        acc[k] = s == 0 ? x : Op::apply(acc[k], x);
                    }
                }
            }
            if (i < nPacks) {
                uint4 r;
                T* e = reinterpret_cast<T*>(&r);
#pragma unroll
                for (int k = 0; k < PE; k++) e[k] = Elem<T>::fromF(acc[k]);
#pragma unroll
                for (int d = 0; d < MAXDST; d++) if (d < nDst && dst[d] != nullptr) storePack(dst[d] + i * PE, r);
            }
        }
    }
    for (uint64_t i = nPacks * PE + tid; i < n; i += nThreads) {
        float acc = 0.f;
#pragma unroll
        for (int s = 0; s < MAXSRC; s++) {
            if (s < nSrc) {
                float x = Elem<T>::toF(loadElem(src[s] + i));
                acc = s == 0 ? x : Op::apply(acc, x);
            }
        }
        T r = Elem<T>::fromF(acc);
#pragma unroll
        for (int d = 0; d < MAXDST; d++) if (d < nDst && dst[d] != nullptr) dst[d][i] = r;
    }
}

}  // namespace jccl

// Declares one extern "C" kernel per (type, op) for a device function template BODY<T, Op>(const AllReduceArgs&).
#define JCCL_KERNEL(NAME, BODY, T, TN, OP, ON)                                                             \
    extern "C" __global__ void __launch_bounds__(jccl::kThreads, 1) NAME##_##TN##_##ON(jccl::AllReduceArgs a) { \
        BODY<T, jccl::OP>(a);                                                                             \
    }
#define JCCL_KERNELS_FOR_TYPE(NAME, BODY, T, TN)         \
    JCCL_KERNEL(NAME, BODY, T, TN, OpSum, sum)           \
    JCCL_KERNEL(NAME, BODY, T, TN, OpProd, prod)         \
    JCCL_KERNEL(NAME, BODY, T, TN, OpMin, min)           \
    JCCL_KERNEL(NAME, BODY, T, TN, OpMax, max)
#define JCCL_KERNELS(NAME, BODY)                                \
    JCCL_KERNELS_FOR_TYPE(NAME, BODY, float, f32)               \
    JCCL_KERNELS_FOR_TYPE(NAME, BODY, __half, f16)              \
    JCCL_KERNELS_FOR_TYPE(NAME, BODY, __nv_bfloat16, bf16)
