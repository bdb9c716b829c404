// One-shot and two-shot allReduce for small and medium messages on fully connected GPUs.
//
// push: block b of every rank owns the same contiguous slice of the buffer; it stores its rank's slice of the input
// (scaled for preMulSum) into slot [parity][myRank] of every peer's push area (posted NVLink writes), meets block b
// of every peer in one barrier (release/acquire: the data was written in this kernel), then reduces its slice from
// local memory only, its own input and the peers' copies, in rank order. One barrier per call, no end barrier:
// peers never touch this rank's input or output. parity = (push calls so far) & 1, kept in device memory
// (graph-safe): a peer writes parity p again only two push calls later, after a call in which this rank finished
// reading p (every push call exchanges data with every peer, so no rank gets two calls ahead). In-place safe.
// TRT-LLM's PUSH_MODE one-shot in shape, our own code.
//
// pull: the peers' buffer pointers are published through the barrier (only meaningful when every rank's buffers
// are addressable from every GPU: one process driving all GPUs). One-shot: every GPU reads every rank's input over
// NVLink and reduces in rank order into its own output. Two-shot (in place, or when asked): rank r reduces
// partition r from every rank's input and stores the result into every rank's output. A barrier before (inputs
// ready, pointers published) and after (no peer still reads this rank's buffers). The form is chosen inside the
// kernel from the published pointers, identically on every rank: two-shot as soon as any rank runs in place.
// vLLM's one-/two-stage custom allReduce and NCCL's symmetric RSxLD_AGxST in shape, our own code.
#pragma once

#include "jccl_prims.cuh"

namespace jccl {

template <typename T, bool SUMONLY>
JCCL_DEV void pushAllReduce(const KernelArgs& a) {
    constexpr uint64_t PE = 16 / sizeof(T);
    Signals* self = sigOf(a, a.rank);
    JCCL_SHARED(uint32_t, sEpoch, 0);
    if (threadId() == 0) sEpoch = ldVolatile(&self->pushEpoch) + 1u;
    syncBlock();
    const uint32_t epoch = sEpoch;
    const uint64_t parity = epoch & 1u;
    const int N = a.nRanks, r = a.rank;
    const Red red = makeRed(a);
    const bool pre = (a.flags & kFlagPreScale) != 0;
    const bool post = (a.flags & kFlagPostDiv) != 0;
    const Slice s = sliceOf((int64_t)a.count, gridSize(), blockId(), PE);
    const uint64_t offBytes = (uint64_t)s.start * sizeof(T);
    const T* in = reinterpret_cast<const T*>(a.in) + s.start;

    // Phase 1: my slice to every peer's slot [parity][r].
    {
        const T* src[1] = {in};
        T* dst[kMaxRanks];
#pragma unroll
        for (int p = 0; p < kMaxRanks; p++) {
            dst[p] = (p == r || p >= N) ? nullptr
                                        : reinterpret_cast<T*>(reinterpret_cast<char*>(a.push.p[p])
                                                               + (parity * N + r) * a.pushSlotBytes + offBytes);
        }
        reduceCopy<T, SUMONLY, 1, kMaxRanks, 4>(src, 1, dst, N, (uint64_t)s.n, threadId(), blockSize(), red,
                                                pre ? 0 : -1, false);
    }
    const bool ok = blockBarrier(a, false);

    // Phase 2: reduce the slice from local memory.
    if (ok) {
        const char* mine = reinterpret_cast<const char*>(a.push.p[r]);
        const T* src[kMaxRanks];
#pragma unroll
        for (int p = 0; p < kMaxRanks; p++) {
            src[p] = p == r ? in : reinterpret_cast<const T*>(mine + (parity * N + p) * a.pushSlotBytes + offBytes);
        }
        T* dst[1] = {reinterpret_cast<T*>(a.out) + s.start};
        reduceCopy<T, SUMONLY, kMaxRanks, 1, 2>(src, N, dst, 1, (uint64_t)s.n, threadId(), blockSize(), red,
                                                pre ? r : -1, post);
    }

    // The last block to finish records this call's epoch.
    syncBlock();
    if (threadId() == 0) {
        fenceGpu();
        if (atomicAddGpu(&self->pushDone, 1u) == gridSize() - 1) {
            stVolatile(&self->pushDone, 0u);
            stVolatile(&self->pushEpoch, epoch);
        }
    }
}

template <typename T, bool SUMONLY>
JCCL_DEV void pullAllReduce(const KernelArgs& a) {
    constexpr uint64_t PE = 16 / sizeof(T);
    if (!blockBarrier(a, true)) return;
    const int N = a.nRanks;
    const Red red = makeRed(a);
    const bool post = (a.flags & kFlagPostDiv) != 0;
    const T* src[kMaxRanks];
    T* dst[kMaxRanks];
    bool anyInPlace = false;
#pragma unroll
    for (int p = 0; p < kMaxRanks; p++) {
        if (p < N) {
            const PeerPtrs pp = peerPtrs(a, p);
            src[p] = reinterpret_cast<const T*>(pp.in);
            dst[p] = reinterpret_cast<T*>(pp.out);
            anyInPlace |= pp.in == pp.out;
        } else {
            src[p] = nullptr;
            dst[p] = nullptr;
        }
    }
    const uint64_t tid = (uint64_t)blockId() * blockSize() + threadId();
    const uint64_t nThreads = (uint64_t)gridSize() * blockSize();
    if (!anyInPlace && (a.flags & kFlagTwoShot) == 0) {
        T* mine[1] = {dst[a.rank]};
        reduceCopy<T, SUMONLY, kMaxRanks, 1, 2>(src, N, mine, 1, a.count, tid, nThreads, red, -1, post);
    } else {
        const Slice s = sliceOf((int64_t)a.count, N, a.rank, PE);
#pragma unroll
        for (int p = 0; p < kMaxRanks; p++) {
            if (p < N) {
                src[p] += s.start;
                dst[p] += s.start;
            }
        }
        reduceCopy<T, SUMONLY, kMaxRanks, kMaxRanks, 2>(src, N, dst, N, (uint64_t)s.n, tid, nThreads, red, -1, post);
    }
    blockBarrier(a, false);
}

}  // namespace jccl
