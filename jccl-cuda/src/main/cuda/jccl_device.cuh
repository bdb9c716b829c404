// JCCL device layer: constants, the kernel argument block and the per-rank memory structures every collective
// kernel shares, and the thin platform layer (thread ids, block barriers, system-scope loads and stores, 16-byte
// LL lines) that kernels call instead of CUDA built-ins. The platform layer has two implementations: the CUDA one
// below (PTX for sm_90), and a host one in the emulator (jccl-cuda/src/test/emu/jccl_emu_device.h, selected with
// -DJCCL_EMULATOR) that runs the same kernel code on CPU threads for tests without a GPU.
// Mirrors the roles of NCCL's src/device/{common.h,op128.h} and src/include/device.h (written from our notes).
//
// Memory model rules used throughout (shared/reference/gpu-collectives-techniques.md §2.2):
//  - a flag that publishes data written earlier in the same kernel is stored with release semantics at .sys
//    scope after a block barrier, and read with acquire semantics at .sys scope before a block barrier;
//  - data produced by peers is read with ld.global.cg (L2 only) so a stale L1 line is never returned;
//  - spin loops never use plain loads; every kSpinsBeforeAbortCheck polls they check the host-mapped abort area
//    and the time they have waited (SpinWatch): a wait longer than the communicator's limit ends the kernel, as an
//    abort does, and leaves a record the host turns into an error naming rank, peer and collective.
#pragma once

#include <stdint.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <vector_types.h>

namespace jccl {

constexpr int kMaxRanks = 8;
constexpr int kMaxBlocks = 160;            // barrier and pointer slots per block; grids never exceed this
constexpr int kFifoSteps = 8;              // NCCL_STEPS: slots per Simple FIFO
constexpr int kMaxP2pOps = 16;             // send/recv/copy operations fused into one p2p kernel
constexpr int kMaxRings = 16;              // distinct ring orders; ring channel (block) b follows ring b % nRings
constexpr uint32_t kSpinsBeforeAbortCheck = 1024;

// Collective codes: NCCL's ncclFunc_t numbers (io.jccl.Collective.ncclId()).
enum : int32_t { kBroadcast = 0, kReduce = 1, kAllGather = 2, kReduceScatter = 3, kAllReduce = 4, kAllToAll = 8 };
// Reduction codes for the generic ('any') kernels: NCCL's ncclRedOp_t numbers for the four base operations.
enum : int32_t { kOpSum = 0, kOpProd = 1, kOpMax = 2, kOpMin = 3 };
// KernelArgs.flags.
enum : int32_t {
    kFlagPreScale = 1,   // multiply this rank's input by scaleF / scaleI before reducing (preMulSum)
    kFlagPostDiv = 2,    // divide the final result by nRanks (avg)
    kFlagTwoShot = 4,    // pull allReduce: prefer the two-shot form even out of place
    kFlagDeep4 = 8,      // pull allReduce on 2 ranks: 4 packs per source in flight per thread (default 2)
    kFlagDeep8 = 16,     // pull allReduce on 2 ranks: 8 packs per source in flight per thread
    kFlagPullGather = 32,// two-shot allReduce: gather the peers' reduced partitions by reads (no remote writes)
    kFlagFencedPublish = 64, // pull allReduce: publish pointers behind a release fence (the older barrier, A/B)
    kFlagNetLL = 256,    // ring kernels across hosts: the LL protocol over each connection's last channel, which
                         // carries nothing else (one block; NCCL's LL over NET)
    kFlagWindow = 128,   // pull kernels on a window: publish offsets in the window; a peer's buffer is win.p[peer]
                         // (its window as mapped here) plus its offset (NCCL's symmetric kernels)
    kFlagTree = 512,     // ring reduction kernel, allReduce: NCCL's tree (chains inside hosts, the double binary
                         // tree across them, KernelArgs.tree), two blocks per channel (coll_tree.cuh)
};
// P2pOp.kind.
enum : int16_t { kP2pSend = 0, kP2pRecv = 1, kP2pCopy = 2, kP2pWait = 3, kP2pSignal = 4 };

// One pointer per rank, as seen from the GPU running the kernel (peer or IPC-mapped addresses).
struct PtrTable {
    uint64_t p[kMaxRanks];
};

// One operation of a fused send/recv kernel; blocks are handed out to operations in order.
struct P2pOp {
    uint64_t ptr;        // send: source, recv and copy: destination (this rank's memory); wait: the signal word;
                         // signal: the peer's signal word
    uint64_t src;        // copy: source; wait: the count the word must reach, or with a counter how many more;
                         // signal: what to add (low 32 bits)
    uint64_t bytes;      // wait: 0, or this rank's counter of the signals awaited so far (advanced by src)
    int32_t peer;        // send/recv: the other rank
    int16_t kind;        // kP2pSend, kP2pRecv, kP2pCopy, kP2pWait, kP2pSignal
    int16_t nBlocks;     // blocks (channels of the connection) this operation uses
};                       // 32 bytes

// The single by-value argument of every kernel. Java writes it field by field
// (io.jccl.cuda.internal.enqueue.KernelArgs); a test checks the PTX .param size against the Java layout.
struct KernelArgs {
    PtrTable sig;            //   0: each rank's Signals
    PtrTable ll;             //  64: each rank's LL receive area
    PtrTable push;           // 128: each rank's push receive area
    PtrTable conn;           // 192: each rank's connection area (ConnCtl[], then FIFOs)
    uint64_t in;             // 256: this rank's input
    uint64_t out;            // 264: this rank's output
    uint64_t count;          // 272: elements (per rank block for reduceScatter/allGather/allToAll; bytes for copies)
    uint64_t abortArea;      // 280: the host-mapped AbortArea
    int32_t rank;            // 288
    int32_t nRanks;          // 292
    int32_t coll;            // 296: kAllReduce, ...
    int32_t root;            // 300: root of broadcast/reduce
    int32_t op;              // 304: kOpSum, ... (generic kernels)
    int32_t flags;           // 308: kFlag*
    double scaleF;           // 312: preMulSum scalar for floating-point types
    int64_t scaleI;          // 320: preMulSum scalar for integer types
    uint64_t slotBytes;      // 328: bytes per Simple FIFO slot
    uint64_t chunkBytes;     // 336: ring chunk / push pipeline chunk per block / pull-gather step, in bytes (x16)
    uint64_t llSlotWords;    // 344: 8-byte words per (parity, source) slot of the LL area
    uint64_t pushSlotBytes;  // 352: bytes per (parity, source) slot of the push area
    int32_t connChannels;    // 360: channels per connection in the connection area
    int32_t nP2p;            // 364: operations in p2p[]
    P2pOp p2p[kMaxP2pOps];   // 368
    uint32_t ring[kMaxRings];// 880: ring orders from the topology search, each starting at rank 0: the rank at
                             //      position p in bits 4p..4p+3
    int32_t nRings;          // 944: rings in ring[] (0 = ranks in order)
    uint32_t remoteMask;     // 948: bit r set: rank r runs on another host, reached through the net proxy; this
                             //      rank's side of that connection is in netConnOwn, and conn.p[r] is r's mirror
    uint64_t netConnOwn;     // 952: this rank's connection area for the peers of remoteMask (pinned host memory,
                             //      or device memory with GPUDirect RDMA)
    PtrTable win;            // 960: with kFlagWindow: each rank's window holding the call's buffers, as mapped here
    uint32_t tree[2];        // 1024: this rank's links in tree 0 and tree 1 (kFlagTree): byte 0 the parent, bytes
                             //       1..3 the children, 0xFF for none
};                           // 1032 bytes

// Per-rank signal area (device memory, zeroed at init; counters never reset afterwards).
struct PeerPtrs {
    uint64_t in;
    uint64_t out;
};
// A rank's {in, out} as two LL lines {lo, flag, hi, flag}: the flag (the publishing barrier's count) says which
// call they belong to, so publishing needs no fence (see publishBarrier).
struct PtrLines {
    uint32_t in[4];
    uint32_t out[4];
};
struct Signals {
    uint32_t arrive[kMaxBlocks][kMaxRanks];   // written by peer p: its barrier count for block b
    uint32_t count[kMaxBlocks][kMaxRanks];    // local: my barrier count for block b with peer p
    uint64_t llSeq;                           // last LL sequence number used (the same on every rank)
    uint64_t llSeqPrev;                       // the one before it
    uint64_t llPeerDone[kMaxRanks];           // written by peer p: the last LL sequence p finished (when it
                                              // received from this rank without sending back)
    uint64_t llPeerSeen[kMaxRanks];           // local: the last LL sequence peer p surely finished (it sent
                                              // this rank the next one)
    uint32_t llDone;                          // blocks of the running LL kernel that finished
    uint32_t pushEpoch;                       // push allReduce calls so far
    uint32_t pushDone;                        // blocks of the running push kernel that finished
    uint32_t timeoutClaims;                   // this rank's waits that passed the limit (the first one records it)
    uint32_t pad[12];
    PtrLines ptrs[kMaxBlocks][kMaxRanks];     // written by peer p for block b: its buffers (pull kernels)
    uint32_t chunkIn[kMaxBlocks][kMaxRanks];  // written by peer p: push chunks of block b it delivered, all calls
    uint32_t chunkBase[kMaxBlocks][kMaxRanks];// local: push chunks of block b exchanged with p before this call
};

static_assert(sizeof(Signals) <= 65536, "Signals must fit AreaLayout.SIGNALS_BYTES");

// The Simple-protocol state of one channel of the connection between `owner` (whose memory holds it) and `peer`.
//  tail: written by peer = steps peer has put into owner's FIFO (peer -> owner);
//  head: written by peer = steps peer has consumed from its FIFO for owner (credits for owner -> peer);
//  sendStep/recvStep: owner's own progress, persisted between kernels so counters never reset.
struct ConnCtl {
    uint64_t tail;
    uint64_t sizes[8];        // [step % kFifoSteps]: bytes the sender put into that step's slot (the net proxy sends
                              // only those); written before the tail that publishes the step
    uint64_t pad0[7];
    uint64_t head;
    uint64_t pad1[15];
    uint64_t sendStep;
    uint64_t recvStep;
    uint64_t pad2[14];
};                                            // 384 bytes

// What a spin loop waits for, in the timeout record (io.jccl.cuda.internal.comm.AbortArea names them).
enum : int32_t {
    kWaitBarrier = 1,     // the peer's block to reach the same barrier (or publish its buffers)
    kWaitLlSlot = 2,      // the peer to finish the previous LL call, so its LL slots can be reused
    kWaitLlData = 3,      // LL / LL128 lines from the peer
    kWaitFifoData = 4,    // a Simple FIFO step from the peer (recv)
    kWaitFifoCredit = 5,  // a free slot in the peer's FIFO (send)
    kWaitPushChunk = 6,   // a push-allReduce chunk from the peer
    kWaitSignal = 7,      // the peer's putSignal into a window (waitSignal)
};
enum : int32_t { kAbortByHost = 1, kAbortTimedOut = 2 };

// The first wait of one rank that passed the limit.
struct TimeoutRecord {
    int32_t peer;         // the rank waited for
    int32_t coll;         // KernelArgs.coll (-1: send/recv)
    int32_t what;         // kWait*
    int32_t block;
    uint64_t waitedNs;    // written last: non-zero once the record is complete
    uint64_t pad;
};                        // 32 bytes

// A communicator's host-mapped abort area (one per initAll clique, shared by its GPUs, or one per process), written
// by io.jccl.cuda.internal.comm.AbortArea and read by every spin loop: state and timeoutMs are read together as one
// 8-byte word, so checking the limit costs no more host-memory reads than checking for an abort.
struct AbortArea {
    int32_t state;        // 0: running; kAbortByHost; kAbortTimedOut (a kernel's wait passed the limit)
    uint32_t timeoutMs;   // the longest one wait may last (Config.timeout / JCCL_TIMEOUT_MS); 0: no limit
    uint64_t pad;
    TimeoutRecord rec[kMaxRanks];
};                        // 272 bytes

}  // namespace jccl

#ifdef JCCL_EMULATOR
#include "jccl_emu_device.h"
#else

#define JCCL_DEV __device__ __forceinline__
#define JCCL_COLD __device__ __noinline__
#define JCCL_SHARED(T, name, slot) __shared__ T name
#define JCCL_KERNEL(name) extern "C" __global__ void __launch_bounds__(512, 1) name(jccl::KernelArgs a)

namespace jccl {

JCCL_DEV uint32_t threadId() { return threadIdx.x; }
JCCL_DEV uint32_t blockId() { return blockIdx.x; }
JCCL_DEV uint32_t blockSize() { return blockDim.x; }
JCCL_DEV uint32_t gridSize() { return gridDim.x; }
JCCL_DEV void syncBlock() { __syncthreads(); }
JCCL_DEV int syncBlockAnd(int p) { return __syncthreads_and(p); }
JCCL_DEV void spinPause() {}
JCCL_DEV void fenceGpu() { __threadfence(); }
JCCL_DEV void fenceSys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }
JCCL_DEV uint32_t atomicAddGpu(uint32_t* p, uint32_t v) { return atomicAdd(p, v); }
JCCL_DEV void atomicAddReleaseSys(uint32_t* p, uint32_t v) {
    asm volatile("red.release.sys.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

JCCL_DEV void stReleaseSys(uint32_t* p, uint32_t v) {
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
JCCL_DEV uint32_t ldAcquireSys(const uint32_t* p) {
    uint32_t v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
JCCL_DEV void stReleaseSys64(uint64_t* p, uint64_t v) {
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
JCCL_DEV void stRelaxedSys64(uint64_t* p, uint64_t v) {
    asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
JCCL_DEV uint64_t ldAcquireSys64(const uint64_t* p) {
    uint64_t v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
// Plain volatile loads and stores, for state that only this GPU writes (or that earlier kernels wrote).
JCCL_DEV uint32_t ldVolatile(const uint32_t* p) { return *reinterpret_cast<const volatile uint32_t*>(p); }
JCCL_DEV uint64_t ldVolatile64(const uint64_t* p) { return *reinterpret_cast<const volatile uint64_t*>(p); }
JCCL_DEV void stVolatile(uint32_t* p, uint32_t v) { *reinterpret_cast<volatile uint32_t*>(p) = v; }
JCCL_DEV void stVolatile64(uint64_t* p, uint64_t v) { *reinterpret_cast<volatile uint64_t*>(p) = v; }

// 16-byte packs; peers' data is read through L2 only.
JCCL_DEV uint4 loadPack(const void* p) { return __ldcg(reinterpret_cast<const uint4*>(p)); }
JCCL_DEV void storePack(void* p, uint4 v) { *reinterpret_cast<uint4*>(p) = v; }
template <typename B>
JCCL_DEV B loadBits(const B* p) { return __ldcg(p); }

// LL line: {data0, flag, data1, flag}, written and read as one 16-byte volatile access.
JCCL_DEV void storeLL(void* p, uint64_t data, uint32_t flag) {
    asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"((uint32_t)data), "r"(flag),
                 "r"((uint32_t)(data >> 32)), "r"(flag)
                 : "memory");
}
JCCL_DEV bool loadLL(const void* p, uint32_t flag, uint64_t* data) {
    uint32_t d0, f0, d1, f1;
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(d0), "=r"(f0), "=r"(d1), "=r"(f1)
                 : "l"(p)
                 : "memory");
    *data = ((uint64_t)d1 << 32) | d0;
    return f0 == flag && f1 == flag;
}
// Packed LL line: {d0, d1, d2, flag}, one 16-byte volatile access each way (see coll_ll.cuh, llPackedAllReduce).
JCCL_DEV void storeLLPacked(void* p, uint32_t d0, uint32_t d1, uint32_t d2, uint32_t flag) {
    asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(d0), "r"(d1), "r"(d2), "r"(flag)
                 : "memory");
}
JCCL_DEV bool loadLLPacked(const void* p, uint32_t flag, uint32_t* d) {
    uint32_t f;
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(f)
                 : "l"(p)
                 : "memory");
    return f == flag;
}
// LL128 (see coll_ll128.cuh): lane L of a warp stores 16 bytes {lo, hi} of the 128-byte line L / 8 with one
// volatile access; the last lane of each line carries the flag as hi. The warp's store instruction writes its 4 lines
// whole, which NVLink delivers whole (the property NCCL's LL128 relies on).
JCCL_DEV void storeLL128(void* p, uint64_t lo, uint64_t hi, bool flagLane) {
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(lo), "l"(hi) : "memory");
}
// Every lane loads its 16 bytes of the warp's 4 lines with one volatile access; true on every lane of the warp
// when every flag lane saw `flag` (then every lane's data belongs to this call). Called by all 32 lanes together.
JCCL_DEV bool pollLL128(const void* p, uint64_t flag, bool flagLane, uint64_t* lo, uint64_t* hi) {
    uint64_t a, b;
    asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
    *lo = a;
    *hi = b;
    return __all_sync(0xffffffffu, !flagLane || b == flag);
}
// True on every lane of the warp when p is true on any (all 32 lanes call it together).
JCCL_DEV bool warpAny(bool p) { return __any_sync(0xffffffffu, p); }
// Zeroes one LL line (used before the 32-bit flag wraps).
JCCL_DEV void clearLL(void* p) { *reinterpret_cast<uint4*>(p) = make_uint4(0, 0, 0, 0); }

// Programmatic dependent launch (sm_90): wait until the kernel before this one in the stream has completed and its
// memory is visible (a no-op when this launch was not programmatic), then let the next kernel, if it was launched
// programmatically, be scheduled onto SMs as ours exit. Every kernel runs this first, before touching memory.
JCCL_DEV void kernelEntry() {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

// The abort area's first 8 bytes in one host-memory read: state in the low half, timeoutMs in the high half.
JCCL_DEV uint64_t abortWord(uint64_t abortArea) { return *reinterpret_cast<const volatile uint64_t*>(abortArea); }
JCCL_DEV uint64_t nowNs() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

}  // namespace jccl
#endif  // JCCL_EMULATOR

namespace jccl {
template <typename T>
JCCL_DEV T jmin(T a, T b) { return a < b ? a : b; }
template <typename T>
JCCL_DEV T jmax(T a, T b) { return a < b ? b : a; }

// What a spin loop needs to give up in time: the abort area, this rank's claim counter, the rank and the call.
struct WaitCtx {
    uint64_t abortArea;
    uint32_t* claims;     // this rank's Signals.timeoutClaims
    int32_t rank;
    int32_t coll;
};
JCCL_DEV WaitCtx waitCtx(const KernelArgs& a) {
    WaitCtx w;
    w.abortArea = a.abortArea;
    w.claims = &reinterpret_cast<Signals*>(a.sig.p[a.rank])->timeoutClaims;
    w.rank = a.rank;
    w.coll = a.coll;
    return w;
}

// The slow half of SpinWatch::stop (kept out of line: it runs once per kSpinsBeforeAbortCheck polls). Returns
// UINT64_MAX when the wait must end: the host raised the abort state, or the wait began at startNs and has lasted
// longer than the limit. The first of this rank's waits to pass the limit writes its record (waitedNs last), then
// raises the state, which stops every other wait of the communicator at its next check. Otherwise returns the
// wait's start time (now, on the first check).
JCCL_COLD uint64_t checkWait(WaitCtx w, uint64_t startNs, int peer, int what) {
    const uint64_t word = abortWord(w.abortArea);
    if ((uint32_t)word != 0) return ~0ull;
    const uint64_t limitNs = (word >> 32) * 1000000ull;
    const uint64_t now = nowNs();
    if (limitNs == 0 || startNs == 0) return startNs == 0 ? now : startNs;
    if (now - startNs < limitNs) return startNs;
    if (atomicAddGpu(w.claims, 1) == 0) {
        AbortArea* area = reinterpret_cast<AbortArea*>(w.abortArea);
        TimeoutRecord* r = &area->rec[w.rank];
        stVolatile(reinterpret_cast<uint32_t*>(&r->peer), (uint32_t)peer);
        stVolatile(reinterpret_cast<uint32_t*>(&r->coll), (uint32_t)w.coll);
        stVolatile(reinterpret_cast<uint32_t*>(&r->what), (uint32_t)what);
        stVolatile(reinterpret_cast<uint32_t*>(&r->block), blockId());
        fenceSys();
        stVolatile64(&r->waitedNs, now - startNs);
        fenceSys();
        stVolatile(reinterpret_cast<uint32_t*>(&area->state), (uint32_t)kAbortTimedOut);
    }
    return ~0ull;
}

// The deadline of one wait: call stop() after every poll that found nothing; true when the wait must end (abort
// or timeout). Reads the abort area and the clock once per kSpinsBeforeAbortCheck polls; the clock starts at the
// first check.
struct SpinWatch {
    uint32_t spins = 0;
    uint64_t startNs = 0;
    JCCL_DEV bool stop(const WaitCtx& w, int peer, int what) {
        if (++spins != kSpinsBeforeAbortCheck) return false;
        spins = 0;
        startNs = checkWait(w, startNs, peer, what);
        return startNs == ~0ull;
    }
};
}  // namespace jccl
