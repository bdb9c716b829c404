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

// The first input word lane L carries of chunk k: two words (one pack) for a data lane, one for a flag lane.
JCCL_DEV uint64_t ll128Word(uint64_t k, int lane) {
    const int line = lane >> 3, pos = lane & 7;
    return k * kLl128ChunkWords + (pos < 7 ? 2 * (7 * line + pos) : 56 + line);
}

// Whether this lane carries a whole pack of data that both buffers let move as one 16-byte access.
template <typename T>
JCCL_DEV bool ll128Whole(const LlPair<T>& p, uint64_t w, bool flagLane) {
    return !flagLane && p.packs && (w + 2) * (8 / sizeof(T)) <= p.count;
}

// This lane's words of chunk k: two for a data lane, one for a flag lane (x[1] left 0). Zeros past the end.
template <typename T, bool SUMONLY>
JCCL_DEV void ll128Load(const LlPair<T>& p, uint64_t k, int lane, bool flagLane, uint64_t* x) {
    const uint64_t w = ll128Word(k, lane);
    if (ll128Whole(p, w, flagLane)) {
        pairLoadPack<T, SUMONLY>(p, w / 2, x);
    } else {
        x[0] = pairLoadWord<T, SUMONLY>(p, w);
        x[1] = flagLane ? 0 : pairLoadWord<T, SUMONLY>(p, w + 1);
    }
}

// Reduces this lane's words of chunk k in rank order (this rank's `mine`, the peer's `theirs`) into the output.
template <typename T, bool SUMONLY>
JCCL_DEV void ll128Store(const LlPair<T>& p, uint64_t k, int lane, bool flagLane, const uint64_t* mine,
                         const uint64_t* theirs) {
    const uint64_t w = ll128Word(k, lane);
    const uint64_t y0 = pairReduce<T, SUMONLY>(p, mine[0], theirs[0]);
    if (flagLane) {
        storeWord(p.out, w, p.count, y0);   // nothing past the end
        return;
    }
    const uint64_t y1 = pairReduce<T, SUMONLY>(p, mine[1], theirs[1]);
    if (ll128Whole(p, w, false)) {
        pairStorePack(p, w / 2, y0, y1);
    } else {
        storeWord(p.out, w, p.count, y0);
        storeWord(p.out, w + 1, p.count, y1);
    }
}

template <typename T, bool SUMONLY>
JCCL_DEV void ll128AllReduce(const KernelArgs& a) {
    constexpr int EW = 8 / sizeof(T);
    const LlCall c = llBegin(a);
    const LlPair<T> p = llPairOf<T>(a);
    const uint64_t nChunks = ((p.count + EW - 1) / EW + kLl128ChunkWords - 1) / kLl128ChunkWords;
    const uint64_t perBlock = (nChunks + gridSize() - 1) / gridSize();
    const uint64_t kBegin = (uint64_t)blockId() * perBlock;
    const uint64_t kEnd = jmin(nChunks, kBegin + perBlock);
    const int lane = threadId() & 31, warp = threadId() >> 5, nWarps = blockSize() >> 5;
    const bool flagLane = (lane & 7) == 7;
    const uint64_t flag = c.flag;
    bool aborted = c.aborted;   // the same on every thread of the block

    // A warp's chunks are k = kBegin + warp, + nWarps, ... (one chunk per step: 4 at once was slower on 2xH200,
    // 4 MiB 21.3 against 19.5 us). It sends them all, then receives them.
    for (uint64_t k = kBegin + warp; k < kEnd && !aborted; k += nWarps) {
        uint64_t x[2];
        ll128Load<T, SUMONLY>(p, k, lane, flagLane, x);
        storeLL128(llLine(a.ll.p[p.peer], c.parity, 2, p.r, a.llSlotWords, k * 32 + lane), x[0],
                   flagLane ? flag : x[1], flagLane);
    }
    for (uint64_t k = kBegin + warp; k < kEnd && !aborted; k += nWarps) {
        uint64_t mine[2], theirs[2];
        ll128Load<T, SUMONLY>(p, k, lane, flagLane, mine);
        const char* line = llLine(a.ll.p[p.r], c.parity, 2, p.peer, a.llSlotWords, k * 32 + lane);
        SpinWatch watch;
        while (!pollLL128(line, flag, flagLane, &theirs[0], &theirs[1])) {
            spinPause();
            if (warpAny(watch.stop(waitCtx(a), p.peer, kWaitLlData))) {
                aborted = true;
                break;
            }
        }
        if (aborted) break;
        ll128Store<T, SUMONLY>(p, k, lane, flagLane, mine, theirs);
    }
    llEnd(a, c);
}

}  // namespace jccl
