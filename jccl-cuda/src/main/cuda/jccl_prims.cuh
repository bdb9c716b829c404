// Synchronisation and data-movement primitives shared by the collective kernels:
//  - blockBarrier: a per-block cross-GPU barrier with monotonic counters (no resets, graph-replay safe), which
//    can also publish this block's buffer pointers to the peers (pull kernels read them after the barrier);
//  - Chan + chanPrim: the Simple protocol over a connection's FIFO (kFifoSteps slots in the receiver's memory,
//    tail/head step counters), one block per channel: send, recv, recvReduceSend, recvReduceCopySend, ... are
//    all one primitive with flags, as NCCL's prims_simple.h (written from our notes, not from NCCL's code);
//  - LL line addressing for the LL receive areas.
#pragma once

#include "jccl_types.cuh"

namespace jccl {

// Spins until ready() holds, waiting for `peer` (what: kWait*); false when the communicator was aborted or the wait
// passed the limit first (SpinWatch).
template <typename F>
JCCL_DEV bool spinUntil(const WaitCtx& w, int peer, int what, F ready) {
    SpinWatch watch;
    while (!ready()) {
        spinPause();
        if (watch.stop(w, peer, what)) return false;
    }
    return true;
}

JCCL_DEV Signals* sigOf(const KernelArgs& a, int rank) { return reinterpret_cast<Signals*>(a.sig.p[rank]); }

// This block's next step with peer p (the counters both sides keep in step; no resets, graph-replay safe).
JCCL_DEV uint32_t nextStep(const KernelArgs& a, int p) {
    uint32_t* c = &sigOf(a, a.rank)->count[blockId()][p];
    const uint32_t v = ldVolatile(c) + 1;
    stVolatile(c, v);
    return v;
}

// The barrier that starts a pull kernel, one step of blockBarrier's counters: thread t stores this rank's {in, out}
// into peer t's Signals.ptrs[b][rank] as two LL lines flagged with the step, and waits until peer t's lines in this
// rank's Signals carry the same step. The flags make the pointers their own arrival, so no release fence (an NVLink
// round trip) precedes them; the peers' inputs are ready because every kernel starts with griddepcontrol.wait,
// before it publishes. With kFlagFencedPublish (A/B only) the lines are followed by a release-store arrival, as
// the barrier was before. Afterwards every thread may call peerPtrs. False on every thread on abort.
JCCL_DEV bool publishBarrier(const KernelArgs& a) {
    Signals* self = sigOf(a, a.rank);
    const int t = threadId();
    const int b = blockId();
    int ok = 1;
    syncBlock();
    if (t < a.nRanks && t != a.rank) {
        const uint32_t v = nextStep(a, t);
        PtrLines* mine = &sigOf(a, t)->ptrs[b][a.rank];
        const uint64_t base = (a.flags & kFlagWindow) ? a.win.p[a.rank] : 0;   // a window: offsets in it
        storeLL(mine->in, a.in - base, v);
        storeLL(mine->out, a.out - base, v);
        if (a.flags & kFlagFencedPublish) {
            stReleaseSys(&sigOf(a, t)->arrive[b][a.rank], v);
            const uint32_t* arrive = &self->arrive[b][t];
            ok = spinUntil(waitCtx(a), t, kWaitBarrier, [&] { return (int32_t)(ldAcquireSys(arrive) - v) >= 0; }) ? 1 : 0;
        } else {
            const PtrLines* theirs = &self->ptrs[b][t];
            uint64_t in, out;
            ok = spinUntil(waitCtx(a), t, kWaitBarrier,
                           [&] { return loadLL(theirs->in, v, &in) && loadLL(theirs->out, v, &out); })
                    ? 1 : 0;
        }
    }
    return syncBlockAnd(ok) != 0;
}

// The arrival half of blockBarrier, for pipelines that wait later (blockWaitArrival): every peer learns that this
// block reached its next step, after all of the block's earlier writes (a release at system scope). The step
// numbers are the barrier's own counters, so barriers and arrivals may be mixed as long as every rank makes the
// same sequence of calls. Thread p (< nRanks, != rank) returns its new count for peer p; the others return 0.
JCCL_DEV uint32_t blockArrive(const KernelArgs& a) {
    const int t = threadId();
    const int b = blockId();
    uint32_t v = 0;
    syncBlock();
    if (t < a.nRanks && t != a.rank) {
        v = nextStep(a, t);
        stReleaseSys(&sigOf(a, t)->arrive[b][a.rank], v);
    }
    return v;
}

// Waits until every peer's block made the arrival this block numbered v (thread p holds v for peer p, as
// blockArrive returned it). False on every thread when the host raised the abort word.
JCCL_DEV bool blockWaitArrival(const KernelArgs& a, uint32_t v) {
    const int t = threadId();
    int ok = 1;
    if (t < a.nRanks && t != a.rank) {
        const uint32_t* arrive = &sigOf(a, a.rank)->arrive[blockId()][t];
        ok = spinUntil(waitCtx(a), t, kWaitBarrier, [&] { return (int32_t)(ldAcquireSys(arrive) - v) >= 0; }) ? 1 : 0;
    }
    return syncBlockAnd(ok) != 0;
}

// Per-block cross-GPU barrier: block b of every rank must call it equally often, and every rank launches the same
// grid. Returns false (on every thread of the block) when the host raised the abort word.
JCCL_DEV bool blockBarrier(const KernelArgs& a) { return blockWaitArrival(a, blockArrive(a)); }

// Rank p's published buffers for this block (after publishBarrier); this rank's own are in a.
JCCL_DEV PeerPtrs peerPtrs(const KernelArgs& a, int p) {
    PeerPtrs r;
    if (p == a.rank) {
        r.in = a.in;
        r.out = a.out;
    } else {
        Signals* self = sigOf(a, a.rank);
        const PtrLines* l = &self->ptrs[blockId()][p];
        const uint64_t base = (a.flags & kFlagWindow) ? a.win.p[p] : 0;   // p's window as mapped here
        r.in = base + (((uint64_t)ldVolatile(&l->in[2]) << 32) | ldVolatile(&l->in[0]));
        r.out = base + (((uint64_t)ldVolatile(&l->out[2]) << 32) | ldVolatile(&l->out[0]));
    }
    return r;
}

// ---------------------------------------------------------------------------------------------------------
// Connections. Rank `owner`'s connection area holds, for each other rank, connChannels ConnCtl lines followed by
// all FIFOs: [nRanks-1][channels] ConnCtl, then [nRanks-1][channels][kFifoSteps][slotBytes].
// A peer on another host (remoteMask) is reached through the net proxy: this rank's side of that connection lies in
// its pinned area (netConnOwn), the peer's side in the mirror of the peer's area (conn.p[peer]); peers on this host
// keep the device areas (CUDA IPC or peer access).
JCCL_DEV int peerIndex(int owner, int peer) { return peer - (peer > owner ? 1 : 0); }
JCCL_DEV char* connArea(const KernelArgs& a, int owner, int peer) {
    const bool net = owner == a.rank && ((a.remoteMask >> peer) & 1u) != 0;
    return reinterpret_cast<char*>(net ? a.netConnOwn : a.conn.p[owner]);
}
JCCL_DEV ConnCtl* connCtl(const KernelArgs& a, int owner, int peer, int ch) {
    return reinterpret_cast<ConnCtl*>(connArea(a, owner, peer))
           + ((uint64_t)peerIndex(owner, peer) * a.connChannels + ch);
}
JCCL_DEV char* connFifo(const KernelArgs& a, int owner, int peer, int ch) {
    char* fifos = connArea(a, owner, peer) + (uint64_t)(a.nRanks - 1) * a.connChannels * sizeof(ConnCtl);
    return fifos + ((uint64_t)peerIndex(owner, peer) * a.connChannels + ch) * kFifoSteps * a.slotBytes;
}

enum : int { kRecv = 1, kSend = 2, kInput = 4, kOutput = 8, kPre = 16, kPost = 32 };

// One channel of this rank: receiving from recvPeer and/or sending to sendPeer (-1: not used), on channel ch.
struct Chan {
    const uint64_t* recvTail;   // mine: steps recvPeer has put in my FIFO
    uint64_t* headOut;          // recvPeer's: where I return credits
    char* recvFifo;             // mine, written by recvPeer
    const uint64_t* sendHead;   // mine: steps sendPeer has consumed
    uint64_t* tailOut;          // sendPeer's: where I publish my steps
    char* sendFifo;             // sendPeer's FIFO for me
    uint64_t* recvStepSave;
    uint64_t* sendStepSave;
    uint64_t recvStep;
    uint64_t sendStep;
    uint64_t slotBytes;
    WaitCtx wait;
    int32_t sendPeer;
    int32_t recvPeer;
    int32_t ll;                 // steps travel as LL lines (chanPrimLL): the connection's LL channel
};

JCCL_DEV void chanInit(Chan& c, const KernelArgs& a, int ch, int sendPeer, int recvPeer) {
    const int r = a.rank;
    c.slotBytes = a.slotBytes;
    c.wait = waitCtx(a);
    c.sendPeer = sendPeer;
    c.recvPeer = recvPeer;
    c.recvTail = nullptr;
    c.headOut = nullptr;
    c.recvFifo = nullptr;
    c.sendHead = nullptr;
    c.tailOut = nullptr;
    c.sendFifo = nullptr;
    c.recvStepSave = nullptr;
    c.sendStepSave = nullptr;
    c.recvStep = 0;
    c.sendStep = 0;
    c.ll = 0;
    if (recvPeer >= 0) {
        ConnCtl* mine = connCtl(a, r, recvPeer, ch);
        c.recvTail = &mine->tail;
        c.headOut = &connCtl(a, recvPeer, r, ch)->head;
        c.recvFifo = connFifo(a, r, recvPeer, ch);
        c.recvStepSave = &mine->recvStep;
        c.recvStep = ldVolatile64(&mine->recvStep);
    }
    if (sendPeer >= 0) {
        ConnCtl* mine = connCtl(a, r, sendPeer, ch);
        c.sendHead = &mine->head;
        c.tailOut = &connCtl(a, sendPeer, r, ch)->tail;
        c.sendFifo = connFifo(a, sendPeer, r, ch);
        c.sendStepSave = &mine->sendStep;
        c.sendStep = ldVolatile64(&mine->sendStep);
    }
}

// Stores the step counters for the next kernel (thread 0).
JCCL_DEV void chanSave(const Chan& c) {
    if (threadId() == 0) {
        if (c.recvStepSave != nullptr) stVolatile64(c.recvStepSave, c.recvStep);
        if (c.sendStepSave != nullptr) stVolatile64(c.sendStepSave, c.sendStep);
    }
}

// Thread 0's wait for one connection: until c has data to receive (kRecv) and/or a free slot to send into (kSend);
// false when the communicator was aborted or the wait passed the limit (watch).
JCCL_DEV bool chanReady(const Chan& c, int flags, SpinWatch& watch) {
    if (flags & kRecv) {
        while (ldAcquireSys64(c.recvTail) <= c.recvStep) {
            spinPause();
            if (watch.stop(c.wait, c.recvPeer, kWaitFifoData)) return false;
        }
    }
    if (flags & kSend) {
        while (ldAcquireSys64(c.sendHead) + kFifoSteps <= c.sendStep) {
            spinPause();
            if (watch.stop(c.wait, c.sendPeer, kWaitFifoCredit)) return false;
        }
    }
    return true;
}

// Thread 0 waits until the next step can proceed (data to receive, a free slot to send into); false on every
// thread when aborted.
JCCL_DEV bool chanWait(const Chan& c, int flags) {
    int ok = 1;
    if (threadId() == 0) {
        SpinWatch watch;
        ok = chanReady(c, flags, watch) ? 1 : 0;
    }
    return syncBlockAnd(ok) != 0;
}

// Ends a step after the block's barrier: thread 0 publishes the step's size (the net proxy sends only those bytes)
// and, behind a system-scope fence, the new tail (kSend) and the credit for the slot received (kRecv, head); every
// thread advances its step counters.
JCCL_DEV void chanPublish(Chan& c, int flags, uint64_t sizeBytes) {
    if (threadId() == 0) {
        if (flags & kSend) stRelaxedSys64(c.tailOut + 1 + (c.sendStep % kFifoSteps), sizeBytes);
        fenceSys();
        if (flags & kSend) stRelaxedSys64(c.tailOut, c.sendStep + 1);
        if (flags & kRecv) stRelaxedSys64(c.headOut, c.recvStep + 1);
    }
    if (flags & kSend) c.sendStep++;
    if (flags & kRecv) c.recvStep++;
}

// chanPrim's LL form (kFlagNetLL: the ring's small calls across hosts, NCCL's LL over NET): each 8-byte word of a
// step travels as one 16-byte line {lo, flag, hi, flag} (storeLL) in the slot, flag = the low 32 bits of the step
// number + 1, so a slot holds slotBytes / 16 words. Each receiving thread polls its own lines' flags instead of
// thread 0 polling the tail before a block barrier. The sender waits for a free slot, and after the lines writes
// the step's size and tail as the Simple protocol does (the net proxy sends on the tail; a peer of this host reads
// the lines as they land); the receiver returns the slot through head. The LL channel carries no Simple step, so
// no stale data can pass for a line of this step: a stale line carries an older step's flag (a multiple of 8 off).
template <typename T, bool SUMONLY>
JCCL_DEV bool chanPrimLL(Chan& c, int flags, const T* in, T* out, int64_t nelem, const Red& red) {
    constexpr int64_t EW = 8 / sizeof(T);
    const int64_t slotElems = (int64_t)(c.slotBytes / 16) * EW;
    const uint32_t t = threadId();
    for (int64_t off = 0; off < nelem; off += slotElems) {
        const int64_t n = jmin(slotElems, nelem - off);
        const uint64_t words = (uint64_t)((n + EW - 1) / EW);
        if ((flags & kSend) && !chanWait(c, kSend)) return false;
        const char* rslot = (flags & kRecv) ? c.recvFifo + (c.recvStep % kFifoSteps) * c.slotBytes : nullptr;
        char* sslot = (flags & kSend) ? c.sendFifo + (c.sendStep % kFifoSteps) * c.slotBytes : nullptr;
        const uint32_t rflag = (uint32_t)(c.recvStep + 1);
        const uint32_t sflag = (uint32_t)(c.sendStep + 1);
        int ok = 1;
        for (uint64_t w = t; w < words; w += blockSize()) {
            uint64_t vals[2];
            int nv = 0, pre = -1;
            if (flags & kRecv) {
                const char* line = rslot + w * 16;
                uint64_t* v = &vals[nv++];
                if (!spinUntil(c.wait, c.recvPeer, kWaitFifoData, [&] { return loadLL(line, rflag, v); })) {
                    ok = 0;
                    break;
                }
            }
            if (flags & kInput) {
                if (flags & kPre) pre = nv;
                vals[nv++] = loadWord(in + off, w, (uint64_t)n);
            }
            const uint64_t r = reduceWord<T, SUMONLY>(vals, nv, red, pre, (flags & kPost) != 0);
            if (flags & kOutput) storeWord(out + off, w, (uint64_t)n, r);
            if (flags & kSend) storeLL(sslot + w * 16, r, sflag);
        }
        if (syncBlockAnd(ok) == 0) return false;
        chanPublish(c, flags, words * 16);
    }
    return true;
}

// One primitive over nelem elements, cut into FIFO slots: sources are the received slot (kRecv) and `in`
// (kInput, scaled with kPre), destinations `out` (kOutput) and the next slot of sendPeer's FIFO (kSend); kPost
// divides the result (avg). The sender writes the step's size (ConnCtl.sizes) and publishes the slot with
// fence.acq_rel.sys + a relaxed .sys store of the new tail; the receiver returns the slot the same way through head.
// False when aborted.
template <typename T, bool SUMONLY>
JCCL_DEV bool chanPrim(Chan& c, int flags, const T* in, T* out, int64_t nelem, const Red& red) {
    if (c.ll) return chanPrimLL<T, SUMONLY>(c, flags, in, out, nelem, red);
    const int64_t slotElems = (int64_t)(c.slotBytes / sizeof(T));
    for (int64_t off = 0; off < nelem; off += slotElems) {
        const int64_t n = jmin(slotElems, nelem - off);
        if (!chanWait(c, flags)) return false;
        const T* src[2];
        T* dst[2];
        int nSrc = 0, nDst = 0, preSrc = -1;
        if (flags & kRecv) src[nSrc++] = reinterpret_cast<const T*>(c.recvFifo + (c.recvStep % kFifoSteps) * c.slotBytes);
        if (flags & kInput) {
            if (flags & kPre) preSrc = nSrc;
            src[nSrc++] = in + off;
        }
        if (flags & kOutput) dst[nDst++] = out + off;
        if (flags & kSend) dst[nDst++] = reinterpret_cast<T*>(c.sendFifo + (c.sendStep % kFifoSteps) * c.slotBytes);
        reduceCopy<T, SUMONLY, 2, 2, 4>(src, nSrc, dst, nDst, (uint64_t)n, threadId(), blockSize(), red, preSrc,
                                        (flags & kPost) != 0);
        syncBlock();
        chanPublish(c, flags, (uint64_t)n * sizeof(T));
    }
    return true;
}

// [start, start + n) of `count` elements split over `parts` parts, each part a multiple of `align` elements.
struct Slice {
    int64_t start;
    int64_t n;
};
JCCL_DEV Slice sliceOf(int64_t count, int parts, int part, int64_t align) {
    const int64_t per = ((count + parts - 1) / parts + align - 1) / align * align;
    Slice s;
    s.start = jmin((int64_t)part * per, count);
    s.n = jmin(s.start + per, count) - s.start;
    return s;
}

// ---------------------------------------------------------------------------------------------------------
// LL receive area of a rank: [2 parities][nRanks sources][slotWords] lines of 16 bytes.
JCCL_DEV char* llLine(uint64_t area, int parity, int nRanks, int src, uint64_t slotWords, uint64_t w) {
    return reinterpret_cast<char*>(area) + (((uint64_t)parity * nRanks + src) * slotWords + w) * 16;
}

}  // namespace jccl
