// NCCL-style ring allReduce, Simple protocol. One block per channel; each channel owns a contiguous slice of the
// buffer and one FIFO of kFifoSteps slots in the memory of the receiving GPU. The sender waits for a credit
// (head + kFifoSteps > sendStep, head written back by its receiver), writes a slot over NVLink, then publishes
// the new tail (fence.acq_rel.sys + relaxed .sys store); the receiver waits for tail > recvStep, consumes the
// slot and returns the credit. Step counters are 64-bit, persist in device memory between kernels (no resets,
// graph-replay safe). Per loop of N chunks a rank runs NCCL's sequence: send(r-1), recvReduceSend(r-j),
// recvReduceCopySend(r), recvCopySend(r-j), recv(r+1). Written from our notes on NCCL's design.
#include "jccl_device.cuh"

namespace jccl {

enum : int { kRecv = 1, kSend = 2, kInput = 4, kOutput = 8 };

struct RingChannel {
    RingCtl* mine;
    RingCtl* next;
    RingCtl* prev;
    char* fifoRecv;   // my FIFO for this channel (written by prev)
    char* fifoSend;   // next's FIFO for this channel (written by me)
    uint64_t sendStep;
    uint64_t recvStep;
    uint64_t slotBytes;
    const volatile int* abortFlag;
};

// Waits (thread 0) until the step can proceed; false on every thread when aborted.
__device__ __forceinline__ bool ringWait(const RingChannel& c, int flags) {
    int ok = 1;
    if (threadIdx.x == 0) {
        uint32_t spins = 0;
        if (flags & kRecv) {
            while (ldAcquireSys64(&c.mine->tail) <= c.recvStep) {
                if (++spins == kSpinsBeforeAbortCheck) {
                    spins = 0;
                    if (abortRequested(c.abortFlag)) { ok = 0; break; }
                }
            }
        }
        if (ok && (flags & kSend)) {
            while (ldAcquireSys64(&c.mine->head) + kFifoSteps <= c.sendStep) {
                if (++spins == kSpinsBeforeAbortCheck) {
                    spins = 0;
                    if (abortRequested(c.abortFlag)) { ok = 0; break; }
                }
            }
        }
    }
    return __syncthreads_and(ok) != 0;
}

// One primitive over `nelem` elements, cut into FIFO slots; false when aborted.
template <typename T, typename Op>
__device__ __forceinline__ bool ringPrim(RingChannel& c, int flags, const T* in, T* out, int64_t nelem) {
    const int64_t slotElems = (int64_t)(c.slotBytes / sizeof(T));
    for (int64_t off = 0; off < nelem; off += slotElems) {
        const int64_t n = min(slotElems, nelem - off);
        if (!ringWait(c, flags)) return false;
        const T* src[2];
        T* dst[2];
        int nSrc = 0, nDst = 0;
        if (flags & kRecv) src[nSrc++] = reinterpret_cast<const T*>(c.fifoRecv + (c.recvStep % kFifoSteps) * c.slotBytes);
        if (flags & kInput) src[nSrc++] = in + off;
        if (flags & kOutput) dst[nDst++] = out + off;
        if (flags & kSend) dst[nDst++] = reinterpret_cast<T*>(c.fifoSend + (c.sendStep % kFifoSteps) * c.slotBytes);
        reduceCopy<T, Op, 2, 2, 4>(src, nSrc, dst, nDst, (uint64_t)n, threadIdx.x, blockDim.x);
        __syncthreads();
        if (threadIdx.x == 0) {
            fenceAcqRelSys();
            if (flags & kSend) stRelaxedSys64(&c.next->tail, c.sendStep + 1);
            if (flags & kRecv) stRelaxedSys64(&c.prev->head, c.recvStep + 1);
        }
        if (flags & kSend) c.sendStep++;
        if (flags & kRecv) c.recvStep++;
    }
    return true;
}

template <typename T, typename Op>
__device__ __forceinline__ void ring(const AllReduceArgs& a) {
    constexpr int64_t PE = 16 / sizeof(T);
    const int N = a.nRanks, r = a.rank, ch = blockIdx.x, nCh = gridDim.x;
    RingChannel c;
    c.mine = a.ctlMine + ch;
    c.next = a.ctlNext + ch;
    c.prev = a.ctlPrev + ch;
    c.fifoRecv = a.fifoMine + (uint64_t)ch * kFifoSteps * a.slotBytes;
    c.fifoSend = a.fifoNext + (uint64_t)ch * kFifoSteps * a.slotBytes;
    c.sendStep = *reinterpret_cast<volatile uint64_t*>(&c.mine->sendStep);
    c.recvStep = *reinterpret_cast<volatile uint64_t*>(&c.mine->recvStep);
    c.slotBytes = a.slotBytes;
    c.abortFlag = a.abortFlag;

    const int64_t count = (int64_t)a.count;
    const int64_t chCount = ((count + nCh - 1) / nCh + PE - 1) / PE * PE;
    const int64_t chStart = min((int64_t)ch * chCount, count);
    const int64_t chN = min(chStart + chCount, count) - chStart;
    const T* in = reinterpret_cast<const T*>(a.in.p[r]);
    T* out = reinterpret_cast<T*>(a.out.p[r]);
    const int64_t chunkElems = (int64_t)a.chunkElems;
    const int64_t loop = (int64_t)N * chunkElems;

    for (int64_t eo = 0; eo < chN; eo += loop) {
        const int64_t rem = chN - eo;
        const int64_t chunk = rem < loop ? ((rem + N - 1) / N + PE - 1) / PE * PE : chunkElems;
        auto prim = [&](int cidx, int flags) -> bool {
            const int64_t o = (int64_t)cidx * chunk;
            const int64_t n = max(min(chunk, rem - o), (int64_t)0);
            const int64_t base = chStart + eo + min(o, rem);
            return ringPrim<T, Op>(c, flags, in + base, out + base, n);
        };
        if (!prim((r - 1 + N) % N, kInput | kSend)) return;
        for (int j = 2; j < N; j++)
            if (!prim((r - j + N) % N, kRecv | kInput | kSend)) return;
        if (!prim(r, kRecv | kInput | kOutput | kSend)) return;
        for (int j = 1; j < N - 1; j++)
            if (!prim((r - j + N) % N, kRecv | kOutput | kSend)) return;
        if (!prim((r + 1) % N, kRecv | kOutput)) return;
    }
    if (threadIdx.x == 0) {
        c.mine->sendStep = c.sendStep;
        c.mine->recvStep = c.recvStep;
    }
}

}  // namespace jccl

JCCL_KERNELS(jccl_ar_ring, jccl::ring)
