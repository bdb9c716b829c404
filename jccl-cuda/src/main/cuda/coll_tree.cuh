// Tree allReduce, Simple protocol (NCCL's tree algorithm with its split of the reduction and the broadcast, written
// from our notes): inside a host the ranks form a chain, and the chains' heads are joined by the double binary tree
// over the hosts (KernelArgs.tree, built by ChainTrees). Channel c follows tree c % 2 over its slice of the data and
// runs as two blocks over the connections of channel c:
//  block 2c   (up)    non-root: receive each child's partial sums, add this rank's input, send to the parent;
//                     root: the same, then write the result and send it to every child
//  block 2c+1 (down)  non-root: receive the result from the parent, write it, send it to every child; root: idle
// The two blocks use distinct directions of each connection (child→me and me→parent up, parent→me and me→child
// down, the root's up block sending down), so each direction's step counters have one owner, and a rank's down
// block drains its parent's results while its up block still sends: no wait forms a cycle however many slots the
// slice takes. Every rank writes the root's bits, so all ranks hold the same result.
#pragma once

#include "jccl_prims.cuh"

namespace jccl {

constexpr int kTreeArity = 3;   // NCCL_MAX_TREE_ARITY: two hosts and the next rank of the chain

// This rank's links in tree `which`: the parent (-1 at the root) and the nDown children.
struct TreeLinks {
    int up;
    int nDown;
    int down[kTreeArity];
};

// KernelArgs.tree[which] unpacked; the word is picked with constant indices (see ringOf).
JCCL_DEV TreeLinks treeOf(const KernelArgs& a, int which) {
    const uint32_t w = which == 0 ? a.tree[0] : a.tree[1];
    TreeLinks t;
    t.up = (w & 0xFFu) == 0xFFu ? -1 : (int)(w & 0xFFu);
    t.nDown = 0;
#pragma unroll
    for (int i = 0; i < kTreeArity; i++) {
        t.down[i] = -1;
        const uint32_t d = (w >> (8 * (i + 1))) & 0xFFu;
        if (d != 0xFFu) t.down[t.nDown++] = (int)d;
    }
    return t;
}

// One pass over nelem elements, slot by slot, over several connections at once: sources are the slots received on
// rc[0..nr) and `in` (when not null; scaled with kPre), destinations `out` (when not null; kPost divides) and the
// next slot of each sc[0..ns). Thread 0 waits for every connection, the block moves the slot, and each connection
// then advances one step (the sizes, tails and credits as chanPrim publishes them). False when aborted.
template <typename T, bool SUMONLY>
JCCL_DEV bool treePrim(Chan* rc, int nr, Chan* sc, int ns, int flags, const T* in, T* out, int64_t nelem,
                       const Red& red, uint64_t slotBytes) {
    const int64_t slotElems = (int64_t)(slotBytes / sizeof(T));
    for (int64_t off = 0; off < nelem; off += slotElems) {
        const int64_t n = jmin(slotElems, nelem - off);
        int ok = 1;
        if (threadId() == 0) {
            SpinWatch watch;
            for (int i = 0; ok && i < nr; i++) ok = chanReady(rc[i], kRecv, watch) ? 1 : 0;
            for (int i = 0; ok && i < ns; i++) ok = chanReady(sc[i], kSend, watch) ? 1 : 0;
        }
        if (syncBlockAnd(ok) == 0) return false;
        const T* src[kTreeArity + 1];
        T* dst[kTreeArity + 1];
        int nSrc = 0, nDst = 0, preSrc = -1;
        for (int i = 0; i < nr; i++)
            src[nSrc++] = reinterpret_cast<const T*>(rc[i].recvFifo + (rc[i].recvStep % kFifoSteps) * slotBytes);
        if (in != nullptr) {
            if (flags & kPre) preSrc = nSrc;
            src[nSrc++] = in + off;
        }
        if (out != nullptr) dst[nDst++] = out + off;
        for (int i = 0; i < ns; i++)
            dst[nDst++] = reinterpret_cast<T*>(sc[i].sendFifo + (sc[i].sendStep % kFifoSteps) * slotBytes);
        reduceCopy<T, SUMONLY, kTreeArity + 1, kTreeArity + 1, 2>(src, nSrc, dst, nDst, (uint64_t)n, threadId(),
                                                                  blockSize(), red, preSrc, (flags & kPost) != 0);
        syncBlock();
        for (int i = 0; i < nr; i++) chanPublish(rc[i], kRecv, 0);
        for (int i = 0; i < ns; i++) chanPublish(sc[i], kSend, (uint64_t)n * sizeof(T));
    }
    return true;
}

template <typename T, bool SUMONLY>
JCCL_DEV void treeAllReduce(const KernelArgs& a) {
    constexpr int64_t PE = 16 / sizeof(T);
    const int ch = blockId() / 2;
    const bool up = (blockId() & 1) == 0;
    const TreeLinks t = treeOf(a, ch & 1);
    const Slice cs = sliceOf((int64_t)a.count, gridSize() / 2, ch, PE);
    const Red red = makeRed(a);
    const int pre = (a.flags & kFlagPreScale) ? kPre : 0;
    const int post = (a.flags & kFlagPostDiv) ? kPost : 0;
    const T* in = reinterpret_cast<const T*>(a.in) + cs.start;
    T* out = reinterpret_cast<T*>(a.out) + cs.start;
    const bool root = t.up < 0;
    if (!up && root) return;
    Chan kids[kTreeArity];
    Chan parent;
    // up: receive from the children (the root also sends to them); down: send to the children
    for (int i = 0; i < t.nDown; i++)
        chanInit(kids[i], a, ch, up && !root ? -1 : t.down[i], up ? t.down[i] : -1);
    if (!root) chanInit(parent, a, ch, up ? t.up : -1, up ? -1 : t.up);
    if (up && root) {
        treePrim<T, SUMONLY>(kids, t.nDown, kids, t.nDown, pre | post, in, out, cs.n, red, a.slotBytes);
    } else if (up) {
        treePrim<T, SUMONLY>(kids, t.nDown, &parent, 1, pre, in, nullptr, cs.n, red, a.slotBytes);
    } else {
        treePrim<T, SUMONLY>(&parent, 1, kids, t.nDown, 0, nullptr, out, cs.n, red, a.slotBytes);
    }
    for (int i = 0; i < t.nDown; i++) chanSave(kids[i]);
    if (!root) chanSave(parent);
}

}  // namespace jccl
