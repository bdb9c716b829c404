// Barrier-free collectives for small messages on fully connected GPUs (LL protocol, one hop): every rank pushes
// each 8-byte word it owes a peer as one 16-byte line {lo, flag, hi, flag} (one volatile v4 store over NVLink)
// into slot [parity][myRank] of that peer's LL area, then polls its own area until the flags of every expected
// line equal this call's flag, and reduces (allReduce, reduceScatter, reduce) or copies (allGather, broadcast,
// allToAll) the words. One-way NVLink latency, no round trip. NCCL's LL line format and its symmetric AGxLL_R
// kernel in shape, generalised to every collective; our own code.
//
// Sequence numbers: Signals.llSeq (64-bit, device memory, graph-replay safe) counts LL calls; every rank runs the
// same LL calls, so every rank uses the same sequence. The line flag is its low 32 bits; 0 and 1 are skipped when
// they wrap (flag 0 = never written, and the parity must keep alternating), and the two calls before a wrap clear
// their parity of the area, so no stale line can match. parity = seq & 1 double-buffers the area: before writing
// call s into peer p, a rank makes sure p has finished call s-2. Evidence, without a round trip: p sent this rank
// lines of a later call (p started it, so it finished the one before: Signals.llPeerSeen, recorded locally), or p
// said so (Signals.llPeerDone, written remotely at the end of a rooted call: by a rank that received without sending
// back, broadcast non-roots and the reduce root, and with more than two ranks by every rank to every peer, since two
// non-roots exchange nothing in it). Symmetric exchanges (allReduce, reduceScatter, allGather, allToAll) thus pay no system-scope
// fence; a rank that only sends (broadcast root, reduce non-roots) can never overwrite lines not read yet.
#pragma once

#include "jccl_prims.cuh"

namespace jccl {

JCCL_DEV uint64_t llNextSeq(uint64_t s) {
    uint64_t n = s + 1;
    if ((uint32_t)n == 0) n += 2;
    return n;
}

// Which peers this rank sends to / receives from, and which segment of the input goes to peer p.
JCCL_DEV bool llSendsTo(const KernelArgs& a, int p) {
    switch (a.coll) {
        case kReduce: return p == a.root;
        case kBroadcast: return a.rank == a.root;
        default: return true;
    }
}
JCCL_DEV bool llRecvsFrom(const KernelArgs& a, int p) {
    switch (a.coll) {
        case kReduce: return a.rank == a.root;
        case kBroadcast: return p == a.root;
        default: return true;
    }
}
JCCL_DEV uint64_t llSegment(const KernelArgs& a, int p) {
    return (a.coll == kReduceScatter || a.coll == kAllToAll) ? (uint64_t)p * a.count : 0;
}

// One LL call's sequence number, line flag and area parity (the same on every rank), read by llBegin.
struct LlCall {
    uint64_t seq;
    uint32_t flag;
    int parity;
    bool aborted;
};

// Starts an LL call on every block: takes the next sequence number and waits until every peer this rank sends to
// has finished call seq-2, whose lines share this call's parity.
JCCL_DEV LlCall llBegin(const KernelArgs& a) {
    Signals* self = sigOf(a, a.rank);
    JCCL_SHARED(uint64_t, sSeq, 0);
    JCCL_SHARED(uint64_t, sPrev, 1);
    if (threadId() == 0) {
        sPrev = ldVolatile64(&self->llSeqPrev);
        sSeq = llNextSeq(ldVolatile64(&self->llSeq));
    }
    syncBlock();
    LlCall c;
    c.seq = sSeq;
    c.flag = (uint32_t)c.seq;
    c.parity = (int)(c.seq & 1);
    const int r = a.rank;
    bool aborted = false;
    if (threadId() < (uint32_t)a.nRanks && (int)threadId() != r && llSendsTo(a, threadId())) {
        const int p = threadId();
        const uint64_t prev = sPrev;
        aborted = !spinUntil(waitCtx(a), p, kWaitLlSlot, [&] {
            return (int64_t)(ldVolatile64(&self->llPeerSeen[p]) - prev) >= 0
                   || (int64_t)(ldAcquireSys64(&self->llPeerDone[p]) - prev) >= 0;
        });
    }
    c.aborted = syncBlockAnd(!aborted) == 0;
    return c;
}

// Ends an LL call on every block (after its receives): the last block to finish records the sequence, tells the
// peers, and clears this parity before a wrap.
JCCL_DEV void llEnd(const KernelArgs& a, const LlCall& c) {
    Signals* self = sigOf(a, a.rank);
    JCCL_SHARED(int, sLast, 2);
    const int N = a.nRanks, r = a.rank;
    const uint64_t seq = c.seq;
    const uint32_t flag = c.flag;
    const int parity = c.parity;
    syncBlock();
    if (threadId() == 0) {
        fenceGpu();
        const uint32_t ticket = atomicAddGpu(&self->llDone, 1u);
        sLast = ticket == gridSize() - 1;
    }
    syncBlock();
    if (sLast) {
        if (flag >= 0xFFFFFFFEu) {
            const uint64_t lines = (uint64_t)N * a.llSlotWords;
            char* area = llLine(a.ll.p[r], parity, N, 0, a.llSlotWords, 0);
            for (uint64_t i = threadId(); i < lines; i += blockSize()) clearLL(area + i * 16);
            syncBlock();
        }
        if (threadId() == 0) {
            stVolatile(&self->llDone, 0u);
            stVolatile64(&self->llSeqPrev, ldVolatile64(&self->llSeq));
            stVolatile64(&self->llSeq, seq);
            // Every rank this one received from has finished seq - 1. After a rooted call the ranks that sent
            // without receiving back learn that this rank finished seq; with more than two ranks so do the ranks it
            // exchanged nothing with (two non-roots), which would otherwise have no evidence for their next call.
            const bool symmetric = a.coll != kBroadcast && a.coll != kReduce;
            bool told = false;
            for (int p = 0; p < N; p++) {
                if (p == r) continue;
                const bool recvd = llRecvsFrom(a, p);
                if (recvd) stVolatile64(&self->llPeerSeen[p], seq - 1);
                if (!symmetric && (recvd || N > 2)) {
                    if (!told) fenceSys();
                    told = true;
                    stReleaseSys64(&sigOf(a, p)->llPeerDone[r], seq);
                }
            }
        }
    }
}

template <typename T, bool SUMONLY, bool COPY>
JCCL_DEV void llColl(const KernelArgs& a) {
    constexpr int EW = 8 / sizeof(T);
    const LlCall c = llBegin(a);
    const uint32_t flag = c.flag;
    const int parity = c.parity;
    const int N = a.nRanks, r = a.rank;
    const Red red = makeRed(a);
    const bool pre = !COPY && (a.flags & kFlagPreScale) != 0;
    const bool post = !COPY && (a.flags & kFlagPostDiv) != 0;
    const uint64_t count = a.count;
    const uint64_t nWords = (count + EW - 1) / EW;
    const uint64_t tid = (uint64_t)blockId() * blockSize() + threadId();
    const uint64_t stride = (uint64_t)gridSize() * blockSize();
    const T* in = reinterpret_cast<const T*>(a.in);
    T* out = reinterpret_cast<T*>(a.out);
    bool aborted = c.aborted;

    // Send: the word w of each peer's segment, scaled for preMulSum, as one line into its slot for this rank.
    for (uint64_t w = tid; w < nWords && !aborted; w += stride) {
#pragma unroll
        for (int p = 0; p < kMaxRanks; p++) {
            if (p < N && p != r && llSendsTo(a, p)) {
                uint64_t v = loadWord(in + llSegment(a, p), w, count);
                if (pre) v = reduceWord<T, SUMONLY>(&v, 1, red, 0, false);
                storeLL(llLine(a.ll.p[p], parity, N, r, a.llSlotWords, w), v, flag);
            }
        }
    }

    // Receive: poll every expected line of word w, then reduce (in rank order) or copy.
    const bool receives = COPY ? true : (a.coll != kReduce || r == a.root);
    for (uint64_t w = tid; w < nWords && receives && !aborted; w += stride) {
        uint64_t vals[kMaxRanks];
#pragma unroll
        for (int p = 0; p < kMaxRanks; p++) {
            if (p >= N) continue;
            if (p == r) {
                if (COPY && a.coll == kBroadcast && r != a.root) continue;
                uint64_t v = loadWord(in + llSegment(a, r), w, count);
                if (pre) v = reduceWord<T, SUMONLY>(&v, 1, red, 0, false);
                vals[p] = v;
            } else if (llRecvsFrom(a, p)) {
                const char* line = llLine(a.ll.p[r], parity, N, p, a.llSlotWords, w);
                uint64_t* v = &vals[p];
                if (!spinUntil(waitCtx(a), p, kWaitLlData, [&] { return loadLL(line, flag, v); })) {
                    aborted = true;
                    break;
                }
            }
        }
        if (aborted) break;
        if (!COPY) {
            storeWord(out, w, count, reduceWord<T, SUMONLY>(vals, N, red, -1, post));
        } else if (a.coll == kBroadcast) {
            const uint64_t v = vals[a.root];
            if (r != a.root || a.in != a.out) storeWord(out, w, count, v);
        } else {
            // allGather, allToAll: block p of the output comes from rank p.
#pragma unroll
            for (int p = 0; p < kMaxRanks; p++) {
                if (p >= N) continue;
                T* dst = out + (uint64_t)p * count;
                if (p == r && reinterpret_cast<const T*>(in + llSegment(a, r)) == dst) continue;
                storeWord(dst, w, count, vals[p]);
            }
        }
    }

    llEnd(a, c);
}

// Packed LL allReduce on 2 ranks (LL_PACKED): as the LL allReduce, but each 16-byte line carries 12 bytes of data
// and one 4-byte flag, {d0, d1, d2, flag}, written and read as one 16-byte volatile access (LL's lines carry 8 bytes
// and two flags, so that 8-byte halves would do). 75% of the bytes on the link are data instead of 50%. It relies
// on NVLink delivering a thread's aligned 16-byte store whole, as NCCL's LL128 relies on whole 128-byte warp
// stores there; the planner takes it only on the pair of GPUs of one process or node (never over PCIe through the
// host). Sequence numbers, parity and the end of call are the LL kernel's.
//
// A thread owns groups of 48 bytes (6 words, 4 lines): group g is bytes [48 g, 48 g + 48) of the buffer, read and
// written as three 16-byte packs when the buffers allow it, and line j (0..3) of group g lives at line
// (g / 32) * 128 + j * 32 + g % 32, so a warp's line stores and polls each cover 512 contiguous bytes. Each block
// owns a contiguous run of groups, whole warps of them (the planner sizes the grid; a block's threads may own none).
// A thread sends its groups, then for each group loads its own input and polls the peer's 4 lines together (all
// of these loads are in flight at once), then reduces in rank order.
JCCL_DEV uint64_t llPackedLine(uint64_t g, int j) { return (g >> 5) * 128 + (uint64_t)j * 32 + (g & 31); }

// What the pair allReduce kernels (packed LL, LL128) take from the arguments: this rank and its peer, the reduction
// with its preMulSum and avg scaling, the buffers, and whether both start on 16 bytes (then whole 16-byte packs move).
template <typename T>
struct LlPair {
    int r, peer;
    Red red;
    bool pre, post, packs;
    uint64_t count;
    const T* in;
    T* out;
};

template <typename T>
JCCL_DEV LlPair<T> llPairOf(const KernelArgs& a) {
    LlPair<T> p;
    p.r = a.rank;
    p.peer = 1 - a.rank;
    p.red = makeRed(a);
    p.pre = (a.flags & kFlagPreScale) != 0;
    p.post = (a.flags & kFlagPostDiv) != 0;
    p.packs = ((reinterpret_cast<uintptr_t>(a.in) | reinterpret_cast<uintptr_t>(a.out)) & 15) == 0;
    p.count = a.count;
    p.in = reinterpret_cast<const T*>(a.in);
    p.out = reinterpret_cast<T*>(a.out);
    return p;
}

// Word w of this rank's input (0 past the end), scaled for preMulSum when asked.
template <typename T, bool SUMONLY>
JCCL_DEV uint64_t pairLoadWord(const LlPair<T>& p, uint64_t w) {
    uint64_t x = loadWord(p.in, w, p.count);
    return p.pre ? reduceWord<T, SUMONLY>(&x, 1, p.red, 0, false) : x;
}

// Pack i (words 2i and 2i + 1) of this rank's input as one 16-byte load, scaled for preMulSum when asked.
template <typename T, bool SUMONLY>
JCCL_DEV void pairLoadPack(const LlPair<T>& p, uint64_t i, uint64_t* x) {
    const uint4 q = loadPack(reinterpret_cast<const uint4*>(p.in) + i);
    x[0] = ((uint64_t)q.y << 32) | q.x;
    x[1] = ((uint64_t)q.w << 32) | q.z;
    if (p.pre) {
        x[0] = reduceWord<T, SUMONLY>(&x[0], 1, p.red, 0, false);
        x[1] = reduceWord<T, SUMONLY>(&x[1], 1, p.red, 0, false);
    }
}

// Stores words y0 and y1 as pack i of the output.
template <typename T>
JCCL_DEV void pairStorePack(const LlPair<T>& p, uint64_t i, uint64_t y0, uint64_t y1) {
    storePack(reinterpret_cast<uint4*>(p.out) + i,
              make_uint4((uint32_t)y0, (uint32_t)(y0 >> 32), (uint32_t)y1, (uint32_t)(y1 >> 32)));
}

// This rank's word `mine` and the peer's `theirs` reduced in rank order (divided for avg).
template <typename T, bool SUMONLY>
JCCL_DEV uint64_t pairReduce(const LlPair<T>& p, uint64_t mine, uint64_t theirs) {
    const uint64_t v[2] = {p.r == 0 ? mine : theirs, p.r == 0 ? theirs : mine};
    return reduceWord<T, SUMONLY>(v, 2, p.red, -1, p.post);
}

// Whether group g lies whole in the buffers and both allow packs.
template <typename T>
JCCL_DEV bool llPackedWhole(const LlPair<T>& p, uint64_t g) {
    return p.packs && (g + 1) * 6 * (8 / sizeof(T)) <= p.count;
}

template <typename T, bool SUMONLY>
JCCL_DEV void llPackedAllReduce(const KernelArgs& a) {
    constexpr int EW = 8 / sizeof(T);
    const LlCall c = llBegin(a);
    const LlPair<T> p = llPairOf<T>(a);
    const uint64_t nGroups = ((p.count + EW - 1) / EW + 5) / 6;
    const uint64_t perBlock = ((nGroups + gridSize() - 1) / gridSize() + 31) / 32 * 32;
    const uint64_t gBegin = (uint64_t)blockId() * perBlock;
    const uint64_t gEnd = jmin(nGroups, gBegin + perBlock);
    bool aborted = c.aborted;

    // Group g of this rank's input as 6 words (zeros past the end).
    auto load = [&](uint64_t g, uint64_t* x) {
        if (llPackedWhole(p, g)) {
#pragma unroll
            for (int i = 0; i < 3; i++) pairLoadPack<T, SUMONLY>(p, g * 3 + i, x + 2 * i);
        } else {
#pragma unroll
            for (int k = 0; k < 6; k++) x[k] = pairLoadWord<T, SUMONLY>(p, g * 6 + k);
        }
    };
    for (uint64_t g = gBegin + threadId(); g < gEnd && !aborted; g += blockSize()) {
        uint64_t x[6];
        load(g, x);
        uint32_t v[12];
#pragma unroll
        for (int k = 0; k < 6; k++) {
            v[2 * k] = (uint32_t)x[k];
            v[2 * k + 1] = (uint32_t)(x[k] >> 32);
        }
#pragma unroll
        for (int j = 0; j < 4; j++) {
            storeLLPacked(llLine(a.ll.p[p.peer], c.parity, 2, p.r, a.llSlotWords, llPackedLine(g, j)), v[3 * j],
                          v[3 * j + 1], v[3 * j + 2], c.flag);
        }
    }
    for (uint64_t g = gBegin + threadId(); g < gEnd && !aborted; g += blockSize()) {
        uint64_t mine[6];
        load(g, mine);
        uint32_t d[12];
        // All four lines are loaded on every poll, without branches between the loads, so they are in flight
        // together (a line already seen cannot change: the peer writes this parity again only after this call).
        if (!spinUntil(waitCtx(a), p.peer, kWaitLlData, [&] {
                int all = 1;
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    all &= (int)loadLLPacked(
                            llLine(a.ll.p[p.r], c.parity, 2, p.peer, a.llSlotWords, llPackedLine(g, j)), c.flag,
                            d + 3 * j);
                }
                return all != 0;
            })) {
            aborted = true;
            break;
        }
        uint64_t y[6];
#pragma unroll
        for (int k = 0; k < 6; k++) y[k] = pairReduce<T, SUMONLY>(p, mine[k], ((uint64_t)d[2 * k + 1] << 32) | d[2 * k]);
        if (llPackedWhole(p, g)) {
#pragma unroll
            for (int i = 0; i < 3; i++) pairStorePack(p, g * 3 + i, y[2 * i], y[2 * i + 1]);
        } else {
#pragma unroll
            for (int k = 0; k < 6; k++) storeWord(p.out, g * 6 + k, p.count, y[k]);   // nothing past the end
        }
    }
    llEnd(a, c);
}

}  // namespace jccl
