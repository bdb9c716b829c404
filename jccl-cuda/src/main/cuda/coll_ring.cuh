// Ring collectives, Simple protocol (NCCL's ring algorithms over prims_simple, written from our notes). One block
// per channel; each channel owns a contiguous slice of the data and one connection to the next rank (send) and
// from the previous rank (receive). Per chunk, rank r runs NCCL's step sequences:
//  allReduce      send(r-1) recvReduceSend(r-j)... recvReduceCopySend(r) recvCopySend(r-j)... recv(r+1)
//  reduceScatter  send(r-1) recvReduceSend(r-j)... recvReduceCopy(r)
//  allGather      copySend(r) recvCopySend(r-j)... recv(r+1)
//  broadcast      a chain from the root: root copySend, then recvCopySend..., the last rank recv
//  reduce         a chain ending at the root: send, recvReduceSend..., the root recvReduceCopy
// "r" above is the rank's position in its channel's ring (KernelArgs.ring, from the topology search; ranks in order
// when there is none): data chunks of allReduce are numbered by position, the per-rank blocks of reduceScatter and
// allGather by the rank at that position, and the broadcast/reduce chains start after the root's position.
// Reduction kernels (COPY = false) handle allReduce, reduceScatter and reduce on T; the copy kernel (COPY = true,
// T = uint8_t, counts in bytes) handles allGather and broadcast. With kFlagTree the reduction kernels run allReduce
// on NCCL's tree instead (coll_tree.cuh).
#pragma once

#include "coll_tree.cuh"

namespace jccl {

// This block's ring: the rank at each position (4 bits per position, KernelArgs.ring), and this rank's position.
struct Ring {
    uint32_t order;
    int n;
    int pos;
    JCCL_DEV int rankAt(int p) const { return (int)((order >> (4 * p)) & 0xFu); }
    JCCL_DEV int posOf(int rank) const {
        for (int p = 0; p < n; p++)
            if (rankAt(p) == rank) return p;
        return rank;
    }
    JCCL_DEV int next() const { return rankAt((pos + 1) % n); }
    JCCL_DEV int prev() const { return rankAt((pos - 1 + n) % n); }
};

// The ring of channel ch. The row is picked with constant indices: indexing the kernel parameter with a variable
// would make the compiler copy the whole argument block to local memory.
JCCL_DEV Ring ringOf(const KernelArgs& a, int ch) {
    Ring g;
    g.n = a.nRanks;
    g.order = 0x76543210u;   // ranks in order
    if (a.nRings > 0) {
        const int row = ch % a.nRings;
#pragma unroll
        for (int i = 0; i < kMaxRings; i++)
            if (i == row) g.order = a.ring[i];
    }
    g.pos = g.posOf(a.rank);
    return g;
}

template <typename T, bool SUMONLY>
JCCL_DEV bool ringAllReduce(const KernelArgs& a, const Ring& g, Chan& c, const Red& red, Slice cs) {
    constexpr int64_t PE = 16 / sizeof(T);
    const int N = a.nRanks, r = g.pos;
    const int pre = (a.flags & kFlagPreScale) ? kPre : 0;
    const int post = (a.flags & kFlagPostDiv) ? kPost : 0;
    const T* in = reinterpret_cast<const T*>(a.in);
    T* out = reinterpret_cast<T*>(a.out);
    const int64_t chunkElems = (int64_t)(a.chunkBytes / sizeof(T));
    const int64_t loop = (int64_t)N * chunkElems;
    for (int64_t eo = 0; eo < cs.n; eo += loop) {
        const int64_t rem = cs.n - eo;
        const int64_t chunk = rem < loop ? ((rem + N - 1) / N + PE - 1) / PE * PE : chunkElems;
        auto prim = [&](int cidx, int flags) -> bool {
            const int64_t o = (int64_t)cidx * chunk;
            const int64_t n = jmax(jmin(chunk, rem - o), (int64_t)0);
            const int64_t base = cs.start + eo + jmin(o, rem);
            return chanPrim<T, SUMONLY>(c, flags, in + base, out + base, n, red);
        };
        if (!prim((r - 1 + N) % N, kInput | kSend | pre)) return false;
        for (int j = 2; j < N; j++)
            if (!prim((r - j + N) % N, kRecv | kInput | kSend | pre)) return false;
        if (!prim(r, kRecv | kInput | kOutput | kSend | pre | post)) return false;
        for (int j = 1; j < N - 1; j++)
            if (!prim((r - j + N) % N, kRecv | kOutput | kSend)) return false;
        if (!prim((r + 1) % N, kRecv | kOutput)) return false;
    }
    return true;
}

template <typename T, bool SUMONLY>
JCCL_DEV bool ringReduceScatter(const KernelArgs& a, const Ring& g, Chan& c, const Red& red, Slice cs) {
    const int N = a.nRanks, r = g.pos;
    const int pre = (a.flags & kFlagPreScale) ? kPre : 0;
    const int post = (a.flags & kFlagPostDiv) ? kPost : 0;
    const T* in = reinterpret_cast<const T*>(a.in);
    T* out = reinterpret_cast<T*>(a.out);
    const int64_t count = (int64_t)a.count;
    const int64_t chunkElems = (int64_t)(a.chunkBytes / sizeof(T));
    for (int64_t eo = 0; eo < cs.n; eo += chunkElems) {
        const int64_t n = jmin(chunkElems, cs.n - eo);
        auto blk = [&](int p) { return in + (int64_t)g.rankAt(p) * count + cs.start + eo; };
        if (!chanPrim<T, SUMONLY>(c, kInput | kSend | pre, blk((r - 1 + N) % N), nullptr, n, red)) return false;
        for (int j = 2; j < N; j++)
            if (!chanPrim<T, SUMONLY>(c, kRecv | kInput | kSend | pre, blk((r - j + N) % N), nullptr, n, red))
                return false;
        if (!chanPrim<T, SUMONLY>(c, kRecv | kInput | kOutput | pre | post, blk(r), out + cs.start + eo, n, red))
            return false;
    }
    return true;
}

template <typename T, bool SUMONLY>
JCCL_DEV bool ringReduce(const KernelArgs& a, const Ring& g, Chan& c, const Red& red, Slice cs) {
    const int N = a.nRanks, r = g.pos;
    const int pre = (a.flags & kFlagPreScale) ? kPre : 0;
    const int post = (a.flags & kFlagPostDiv) ? kPost : 0;
    const T* in = reinterpret_cast<const T*>(a.in) + cs.start;
    T* out = reinterpret_cast<T*>(a.out) + cs.start;
    const int pos = (r - g.posOf(a.root) - 1 + 2 * N) % N;  // the chain starts after the root and ends at it
    const int flags = pos == 0 ? kInput | kSend | pre
                      : pos == N - 1 ? kRecv | kInput | kOutput | pre | post
                                     : kRecv | kInput | kSend | pre;
    return chanPrim<T, SUMONLY>(c, flags, in, out, cs.n, red);
}

template <typename T>
JCCL_DEV bool ringAllGather(const KernelArgs& a, const Ring& g, Chan& c, const Red& red, Slice cs) {
    const int N = a.nRanks, r = g.pos;
    const T* in = reinterpret_cast<const T*>(a.in);
    T* out = reinterpret_cast<T*>(a.out);
    const int64_t count = (int64_t)a.count;
    const bool inPlace = in == out + (int64_t)a.rank * count;
    const int64_t chunkElems = (int64_t)(a.chunkBytes / sizeof(T));
    for (int64_t eo = 0; eo < cs.n; eo += chunkElems) {
        const int64_t n = jmin(chunkElems, cs.n - eo);
        auto blk = [&](int p) { return out + (int64_t)g.rankAt(p) * count + cs.start + eo; };
        if (!chanPrim<T, true>(c, kInput | kSend | (inPlace ? 0 : kOutput), in + cs.start + eo, blk(r), n, red))
            return false;
        for (int j = 1; j < N - 1; j++)
            if (!chanPrim<T, true>(c, kRecv | kOutput | kSend, nullptr, blk((r - j + N) % N), n, red)) return false;
        if (!chanPrim<T, true>(c, kRecv | kOutput, nullptr, blk((r + 1) % N), n, red)) return false;
    }
    return true;
}

template <typename T>
JCCL_DEV bool ringBroadcast(const KernelArgs& a, const Ring& g, Chan& c, const Red& red, Slice cs) {
    const int N = a.nRanks, r = g.pos;
    const T* in = reinterpret_cast<const T*>(a.in) + cs.start;
    T* out = reinterpret_cast<T*>(a.out) + cs.start;
    const int pos = (r - g.posOf(a.root) + N) % N;
    const int flags = pos == 0 ? kInput | kSend | (a.in == a.out ? 0 : kOutput)
                      : pos == N - 1 ? kRecv | kOutput
                                     : kRecv | kOutput | kSend;
    return chanPrim<T, true>(c, flags, in, out, cs.n, red);
}

template <typename T, bool SUMONLY, bool COPY>
JCCL_DEV void ringColl(const KernelArgs& a) {
    constexpr int64_t PE = 16 / sizeof(T);
    if (!COPY && (a.flags & kFlagTree)) {   // allReduce on NCCL's tree: the same kernels, two blocks a channel
        treeAllReduce<T, SUMONLY>(a);
        return;
    }
    const Ring g = ringOf(a, blockId());
    Chan c;
    const bool ll = (a.flags & kFlagNetLL) != 0;   // one block, on the connections' LL channel
    chanInit(c, a, ll ? a.connChannels - 1 : blockId(), g.next(), g.prev());
    c.ll = ll ? 1 : 0;
    const Red red = makeRed(a);
    const Slice cs = sliceOf((int64_t)a.count, gridSize(), blockId(), PE);
    if (COPY) {
        if (a.coll == kAllGather) ringAllGather<T>(a, g, c, red, cs);
        else if (a.coll == kBroadcast) ringBroadcast<T>(a, g, c, red, cs);
    } else {
        if (a.coll == kAllReduce) ringAllReduce<T, SUMONLY>(a, g, c, red, cs);
        else if (a.coll == kReduceScatter) ringReduceScatter<T, SUMONLY>(a, g, c, red, cs);
        else if (a.coll == kReduce) ringReduce<T, SUMONLY>(a, g, c, red, cs);
    }
    chanSave(c);
}

}  // namespace jccl
