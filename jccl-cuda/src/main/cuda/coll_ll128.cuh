// LL128 allReduce on 2 ranks (LL128): the LL allReduce with 128-byte lines of which 120 bytes are data and the
// last 8 the flag, so 94% of the bytes on the link are data (LL: 50%, packed LL: 75%). A warp writes 4 lines (512
// bytes) with one 16-byte store per lane and polls them with one 16-byte load per lane; only the 4 flag lanes check
// a flag, and the warp votes. This relies on a warp's 128-byte line store arriving whole over NVLink and being read
// whole, the property NCCL's LL128 protocol relies on (it enables LL128 on NVLink only); the planner takes it only
// on the pair of GPUs of one process or node. Sequence numbers, parity and the end of call are the LL kernel's.
// NCCL's LL128 protocol in its line format (ncclLL128 lines of 16 u64, flag in the last); our own kernel.
//
// Chunk k of the buffer is bytes [480 k, 480 k + 480): 30 packs of 16 bytes. Lane L of the warp that owns chunk k
// writes 16 bytes of line L / 8 at line index 32 k + L of the slot; lane position p = L % 8:
//   p < 7:  pack 7 (L / 8) + p, i.e. words 2 (7 (L / 8) + p) and the next;
//   p == 7: word 56 + L / 8 (packs 28 and 29, 8 bytes per flag lane), and the flag.
// Each block owns a contiguous run of chunks; its warps take them in turn. Words past the end travel as zeros.
#pragma once

#include "coll_ll.cuh"

namespace jccl {

constexpr int kLl128ChunkWords = 60;   // 480 data bytes per warp chunk
constexpr int kLl128Unroll = 1;        // chunks a warp moves per step (4 was slower on 2xH200: 4 MiB 21.3 against 19.5 us)

// This lane's words of chunk k: two for a data lane, one for a flag lane (x[1] left 0). Zeros past the end.
template <typename T, bool SUMONLY>
JCCL_DEV void ll128Load(const T* in, uint64_t k, int lane, uint64_t count, bool packs, bool pre, const Red& red,
                        uint64_t* x) {
    constexpr int EW = 8 / sizeof(T);
    const uint64_t nWords = (count + EW - 1) / EW;
    const int line = lane >> 3, pos = lane & 7;
    const uint64_t base = k * kLl128ChunkWords;
    if (pos < 7) {
        const uint64_t w = base + 2 * (7 * line + pos);
        if (packs && (w + 2) * EW <= count) {
            const uint4 q = loadPack(reinterpret_cast<const uint4*>(in) + w / 2);
            x[0] = ((uint64_t)q.y << 32) | q.x;
            x[1] = ((uint64_t)q.w << 32) | q.z;
        } else {
            x[0] = w < nWords ? loadWord(in, w, count) : 0;
            x[1] = w + 1 < nWords ? loadWord(in, w + 1, count) : 0;
        }
    } else {
        const uint64_t w = base + 56 + line;
        x[0] = w < nWords ? loadWord(in, w, count) : 0;
        x[1] = 0;
    }
    if (pre) {
        x[0] = reduceWord<T, SUMONLY>(&x[0], 1, red, 0, false);
        x[1] = reduceWord<T, SUMONLY>(&x[1], 1, red, 0, false);
    }
}

// Reduces this lane's words of chunk k in rank order (this rank's `mine`, the peer's `theirs`) into the output.
template <typename T, bool SUMONLY>
JCCL_DEV void ll128Store(T* out, uint64_t k, int lane, uint64_t count, bool packs, bool post, const Red& red, int r,
                         const uint64_t* mine, const uint64_t* theirs) {
    constexpr int EW = 8 / sizeof(T);
    const uint64_t nWords = (count + EW - 1) / EW;
    uint64_t y[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const uint64_t pair[2] = {r == 0 ? mine[h] : theirs[h], r == 0 ? theirs[h] : mine[h]};
        y[h] = reduceWord<T, SUMONLY>(pair, 2, red, -1, post);
    }
    const int line = lane >> 3, pos = lane & 7;
    if (pos < 7) {
        const uint64_t w = k * kLl128ChunkWords + 2 * (7 * line + pos);
        if (packs && (w + 2) * EW <= count) {
            storePack(reinterpret_cast<uint4*>(out) + w / 2,
                      make_uint4((uint32_t)y[0], (uint32_t)(y[0] >> 32), (uint32_t)y[1], (uint32_t)(y[1] >> 32)));
        } else {
            if (w < nWords) storeWord(out, w, count, y[0]);
            if (w + 1 < nWords) storeWord(out, w + 1, count, y[1]);
        }
    } else {
        const uint64_t w = k * kLl128ChunkWords + 56 + line;
        if (w < nWords) storeWord(out, w, count, y[0]);
    }
}

template <typename T, bool SUMONLY>
JCCL_DEV void ll128AllReduce(const KernelArgs& a) {
    constexpr int EW = 8 / sizeof(T);
    const LlCall c = llBegin(a);
    const int r = a.rank, peer = 1 - a.rank;
    const Red red = makeRed(a);
    const bool pre = (a.flags & kFlagPreScale) != 0;
    const bool post = (a.flags & kFlagPostDiv) != 0;
    const uint64_t count = a.count;
    const uint64_t nWords = (count + EW - 1) / EW;
    const uint64_t nChunks = (nWords + kLl128ChunkWords - 1) / kLl128ChunkWords;
    const uint64_t perBlock = (nChunks + gridSize() - 1) / gridSize();
    const uint64_t kBegin = (uint64_t)blockId() * perBlock;
    const uint64_t kEnd = jmin(nChunks, kBegin + perBlock);
    const int lane = threadId() & 31, warp = threadId() >> 5, nWarps = blockSize() >> 5;
    const bool flagLane = (lane & 7) == 7;
    const uint64_t flag = c.flag;
    const T* in = reinterpret_cast<const T*>(a.in);
    T* out = reinterpret_cast<T*>(a.out);
    const bool packs = ((reinterpret_cast<uintptr_t>(a.in) | reinterpret_cast<uintptr_t>(a.out)) & 15) == 0;
    bool aborted = c.aborted;   // the same on every thread of the block

    // A warp takes kLl128Unroll of its chunks per step (k0, k0 + nWarps, ...): their loads are in flight together.
    for (uint64_t k0 = kBegin + warp; k0 < kEnd && !aborted; k0 += kLl128Unroll * nWarps) {
        uint64_t x[kLl128Unroll][2];
#pragma unroll
        for (int u = 0; u < kLl128Unroll; u++) {
            if (k0 + u * nWarps < kEnd) ll128Load<T, SUMONLY>(in, k0 + u * nWarps, lane, count, packs, pre, red, x[u]);
        }
#pragma unroll
        for (int u = 0; u < kLl128Unroll; u++) {
            const uint64_t k = k0 + u * nWarps;
            if (k < kEnd) {
                storeLL128(llLine(a.ll.p[peer], c.parity, 2, r, a.llSlotWords, k * 32 + lane), x[u][0],
                           flagLane ? flag : x[u][1], flagLane);
            }
        }
    }
    for (uint64_t k0 = kBegin + warp; k0 < kEnd && !aborted; k0 += kLl128Unroll * nWarps) {
        const int n = (int)jmin((uint64_t)kLl128Unroll, (kEnd - k0 + nWarps - 1) / nWarps);
        uint64_t mine[kLl128Unroll][2], theirs[kLl128Unroll][2];
        const char* lines[kLl128Unroll];
#pragma unroll
        for (int u = 0; u < kLl128Unroll; u++) {
            const uint64_t k = k0 + u * nWarps;
            lines[u] = llLine(a.ll.p[r], c.parity, 2, peer, a.llSlotWords, k * 32 + lane);
            if (u < n) ll128Load<T, SUMONLY>(in, k, lane, count, packs, pre, red, mine[u]);
        }
        uint32_t spins = 0;
        while (!pollLL128<kLl128Unroll>(lines, n, flag, flagLane, theirs)) {
            spinPause();
            if (++spins == kSpinsBeforeAbortCheck) {
                spins = 0;
                if (warpAny(abortRequested(a.abortFlag))) {
                    aborted = true;
                    break;
                }
            }
        }
        if (aborted) break;
#pragma unroll
        for (int u = 0; u < kLl128Unroll; u++) {
            if (u < n) ll128Store<T, SUMONLY>(out, k0 + u * nWarps, lane, count, packs, post, red, r, mine[u], theirs[u]);
        }
    }
    llEnd(a, c);
}

}  // namespace jccl
