// One-shot and two-shot allReduce for small and medium messages on fully connected GPUs.
//
// push: block b of every rank owns the same contiguous slice of the buffer, cut into chunks of chunkBytes. For each
// chunk it stores its rank's data (scaled for preMulSum) into slot [parity][myRank] of every peer's push area
// (posted NVLink writes), publishes "chunk k of block b delivered" to each peer (Signals.chunkIn, a release store
// after a block barrier: the data was written in this kernel), and reduces the chunk from local memory only, its own
// input and the peers' copies, in rank order, once the peers' chunk k has arrived. Software-pipelined: chunk k+1 is
// written while chunk k is waited for and reduced, and its release only waits for writes that had that time to
// land. No end barrier: peers never touch this rank's input or output. The chunk counters persist in device memory
// (graph-safe; both sides count the same chunks). parity = (push calls so far) & 1: a peer writes parity p again
// only two push calls later, after a call whose chunks this rank had to deliver, which it did only after finishing
// the call that read p. In-place safe. TRT-LLM's PUSH_MODE one-shot, pipelined; our own code.
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
    const int N = a.nRanks, r = a.rank, b = blockId(), t = threadId();
    JCCL_SHARED(uint32_t, sEpoch, 0);
    if (t == 0) sEpoch = ldVolatile(&self->pushEpoch) + 1u;
    const uint32_t base = (t < (uint32_t)N && (int)t != r) ? ldVolatile(&self->chunkBase[b][t]) : 0u;
    syncBlock();
    const uint32_t epoch = sEpoch;
    const uint64_t parity = epoch & 1u;
    const Red red = makeRed(a);
    const bool pre = (a.flags & kFlagPreScale) != 0;
    const bool post = (a.flags & kFlagPostDiv) != 0;
    const Slice s = sliceOf((int64_t)a.count, gridSize(), b, PE);
    const int64_t chunk = jmax((int64_t)(a.chunkBytes / sizeof(T)) / (int64_t)PE * (int64_t)PE, (int64_t)PE);
    const int nChunks = (int)((s.n + chunk - 1) / chunk);
    const T* in = reinterpret_cast<const T*>(a.in);
    T* out = reinterpret_cast<T*>(a.out);
    bool ok = true;

    // Writes chunk k of this block's slice into every peer's slot [parity][r].
    auto write = [&](int k) {
        const int64_t off = s.start + (int64_t)k * chunk;
        const int64_t n = jmin(chunk, s.start + s.n - off);
        const T* src[1] = {in + off};
        T* dst[kMaxRanks];
#pragma unroll
        for (int p = 0; p < kMaxRanks; p++) {
            dst[p] = (p == r || p >= N) ? nullptr
                                        : reinterpret_cast<T*>(reinterpret_cast<char*>(a.push.p[p])
                                                               + (parity * N + r) * a.pushSlotBytes) + off;
        }
        reduceCopy<T, SUMONLY, 1, kMaxRanks, 4>(src, 1, dst, N, (uint64_t)n, t, blockSize(), red, pre ? 0 : -1, false);
    };
    // Tells every peer that chunk k of this block has been written (after every thread's stores).
    auto signal = [&](int k) {
        syncBlock();
        if (t < (uint32_t)N && (int)t != r) stReleaseSys(&sigOf(a, t)->chunkIn[b][r], base + k + 1);
    };
    // Waits until every peer delivered chunk k, then reduces it from local memory.
    auto reduce = [&](int k) -> bool {
        int got = 1;
        if (t < (uint32_t)N && (int)t != r) {
            SpinWatch watch;
            while ((int32_t)(ldAcquireSys(&self->chunkIn[b][t]) - (base + k + 1)) < 0) {
                spinPause();
                if (watch.stop(waitCtx(a), t, kWaitPushChunk)) {
                    got = 0;
                    break;
                }
            }
        }
        if (syncBlockAnd(got) == 0) return false;
        const int64_t off = s.start + (int64_t)k * chunk;
        const int64_t n = jmin(chunk, s.start + s.n - off);
        const char* mine = reinterpret_cast<const char*>(a.push.p[r]);
        const T* src[kMaxRanks];
#pragma unroll
        for (int p = 0; p < kMaxRanks; p++) {
            src[p] = p == r ? in + off : reinterpret_cast<const T*>(mine + (parity * N + p) * a.pushSlotBytes) + off;
        }
        T* dst[1] = {out + off};
        reduceCopy<T, SUMONLY, kMaxRanks, 1, 2>(src, N, dst, 1, (uint64_t)n, t, blockSize(), red, pre ? r : -1, post);
        return true;
    };

    if (nChunks > 0) write(0);
    for (int k = 0; k < nChunks && ok; k++) {
        signal(k);
        if (k + 1 < nChunks) write(k + 1);
        ok = reduce(k);
    }

    // Count the chunks for the next call; the last block to finish records this call's epoch.
    syncBlock();
    if (t < (uint32_t)N && (int)t != r) stVolatile(&self->chunkBase[b][t], base + nChunks);
    if (t == 0) {
        fenceGpu();
        if (atomicAddGpu(&self->pushDone, 1u) == gridSize() - 1) {
            stVolatile(&self->pushDone, 0u);
            stVolatile(&self->pushEpoch, epoch);
        }
    }
}

// Two-shot by reads only (kFlagPullGather): block b reduces its slice of partition `rank` from every rank's input
// into its own output (remote reads, local writes), tells the peers' block b, and then copies its slice of every
// peer's partition out of that peer's output (remote reads again). No NVLink writes, so the end barrier has no
// posted writes to drain. Each slice goes in steps of about a.chunkBytes with an arrival after each, so the peers'
// first steps are long ready when this block turns to gathering them. Every rank cuts every partition the same way
// and takes the step count from the largest block slice, so all ranks arrive equally often and the block that waits
// for an arrival is the only one reading what it covers. In-place safe: a peer overwrites its partition `rank` only
// after this block's arrival for that step, i.e. after it was read.
template <typename T, bool SUMONLY, int MAXSRC, int UNROLL>
JCCL_DEV bool pullGather(const KernelArgs& a, const T* const* in, T* const* out, const Red& red, bool post) {
    constexpr int64_t PE = 16 / sizeof(T);
    const int N = a.nRanks, r = a.rank, b = blockId(), t = threadId();
    const int64_t largest = sliceOf(sliceOf((int64_t)a.count, N, 0, PE).n, gridSize(), 0, PE).n * (int64_t)sizeof(T);
    const int steps = (int)jmin(jmax((largest + (int64_t)a.chunkBytes - 1) / jmax((int64_t)a.chunkBytes, (int64_t)16),
                                     (int64_t)1), (int64_t)64);
    // Element offset and length of step k of this block's slice of partition p (the same on every rank).
    auto step = [&](int p, int k) -> Slice {
        const Slice part = sliceOf((int64_t)a.count, N, p, PE);
        const Slice blk = sliceOf(part.n, gridSize(), b, PE);
        Slice s = sliceOf(blk.n, steps, k, PE);
        s.start += part.start + blk.start;
        return s;
    };
    uint32_t first = 0;
    for (int k = 0; k < steps; k++) {
        const Slice s = step(r, k);
        const T* src[MAXSRC];
#pragma unroll
        for (int p = 0; p < MAXSRC; p++) src[p] = p < N ? in[p] + s.start : nullptr;
        T* dst[1] = {out[r] + s.start};
        reduceCopy<T, SUMONLY, MAXSRC, 1, UNROLL>(src, N, dst, 1, (uint64_t)s.n, t, blockSize(), red, -1, post);
        const uint32_t v = blockArrive(a);
        if (k == 0) first = v;
    }
    for (int k = 0; k < steps; k++) {
        if (!blockWaitArrival(a, first + k)) return false;
        for (int p = 0; p < N; p++) {
            if (p == r) continue;
            const Slice s = step(p, k);
            const T* src[1] = {out[p] + s.start};
            T* dst[1] = {out[r] + s.start};
            reduceCopy<T, SUMONLY, 1, 1, UNROLL>(src, 1, dst, 1, (uint64_t)s.n, t, blockSize(), red, -1, false);
        }
    }
    return true;
}

// The pull allReduce's data movement between its two barriers. MAXSRC = the most ranks it serves (2 for the pair
// specialisation, which can afford more packs in flight per thread: UNROLL).
template <typename T, bool SUMONLY, int MAXSRC, int UNROLL>
JCCL_DEV bool pullMove(const KernelArgs& a) {
    constexpr uint64_t PE = 16 / sizeof(T);
    const int N = a.nRanks;
    const Red red = makeRed(a);
    const bool post = (a.flags & kFlagPostDiv) != 0;
    const T* src[MAXSRC];
    T* dst[MAXSRC];
    bool anyInPlace = false;
#pragma unroll
    for (int p = 0; p < MAXSRC; p++) {
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
        reduceCopy<T, SUMONLY, MAXSRC, 1, UNROLL>(src, N, mine, 1, a.count, tid, nThreads, red, -1, post);
    } else if (a.flags & kFlagPullGather) {
        return pullGather<T, SUMONLY, MAXSRC, UNROLL>(a, src, dst, red, post);
    } else {
        const Slice s = sliceOf((int64_t)a.count, N, a.rank, PE);
#pragma unroll
        for (int p = 0; p < MAXSRC; p++) {
            if (p < N) {
                src[p] += s.start;
                dst[p] += s.start;
            }
        }
        reduceCopy<T, SUMONLY, MAXSRC, MAXSRC, UNROLL>(src, N, dst, N, (uint64_t)s.n, tid, nThreads, red, -1, post);
    }
    return true;
}

// reduceScatter, allGather and broadcast by reads of the peers' buffers (kFlagWindow: the buffers lie in windows,
// NCCL's symmetric kernels), between the pull kernel's two barriers. reduceScatter: this rank's block of every rank's
// input, reduced into its output. allGather: every rank's input into its block of the output (this rank's own first,
// then the next ranks in turn, so the ranks read different peers at once). broadcast: the root's input into the
// output. a.count is the per-rank block (reduceScatter, allGather) or the whole buffer (broadcast), in elements.
template <typename T, bool SUMONLY>
JCCL_DEV bool pullOthers(const KernelArgs& a) {
    const int N = a.nRanks, r = a.rank;
    const Red red = makeRed(a);
    const uint64_t n = a.count;
    const uint64_t tid = (uint64_t)blockId() * blockSize() + threadId();
    const uint64_t nThreads = (uint64_t)gridSize() * blockSize();
    T* out = reinterpret_cast<T*>(a.out);
    if (a.coll == kReduceScatter) {
        const T* src[kMaxRanks];
#pragma unroll
        for (int p = 0; p < kMaxRanks; p++)
            src[p] = p < N ? reinterpret_cast<const T*>(peerPtrs(a, p).in) + (uint64_t)r * n : nullptr;
        T* dst[1] = {out};
        reduceCopy<T, SUMONLY, kMaxRanks, 1, 2>(src, N, dst, 1, n, tid, nThreads, red, -1,
                                                (a.flags & kFlagPostDiv) != 0);
    } else if (a.coll == kAllGather) {
        for (int k = 0; k < N; k++) {
            const int p = (r + k) % N;
            const T* src[1] = {reinterpret_cast<const T*>(peerPtrs(a, p).in)};
            T* dst[1] = {out + (uint64_t)p * n};
            if (src[0] != dst[0]) reduceCopy<T, SUMONLY, 1, 1, 2>(src, 1, dst, 1, n, tid, nThreads, red, -1, false);
        }
    } else {
        const T* src[1] = {reinterpret_cast<const T*>(peerPtrs(a, a.root).in)};
        T* dst[1] = {out};
        if (src[0] != dst[0]) reduceCopy<T, SUMONLY, 1, 1, 2>(src, 1, dst, 1, n, tid, nThreads, red, -1, false);
    }
    return true;
}

template <typename T, bool SUMONLY>
JCCL_DEV void pullAllReduce(const KernelArgs& a) {
    if (!publishBarrier(a)) return;
    bool ok;
    if (a.coll != kAllReduce) {
        ok = pullOthers<T, SUMONLY>(a);
    } else if (a.nRanks != 2) {
        ok = pullMove<T, SUMONLY, kMaxRanks, 2>(a);
    } else if (a.flags & kFlagDeep8) {
        ok = pullMove<T, SUMONLY, 2, 8>(a);
    } else if (a.flags & kFlagDeep4) {
        ok = pullMove<T, SUMONLY, 2, 4>(a);
    } else {
        ok = pullMove<T, SUMONLY, 2, 2>(a);
    }
    if (ok) blockBarrier(a);
}

}  // namespace jccl
