// Point-to-point: a batch of sends, receives, local copies and signal waits fused into one kernel (what ncclGroupEnd launches
// for send/recv, allToAll, gather and scatter). Blocks are handed out to the operations in order; an operation
// with k blocks uses channels 0..k-1 of its connection, and its bytes are split over those channels exactly as the
// peer's matching operation splits them (k is a function of the byte count alone), so both sides agree on every
// FIFO step. Sends and receives use the Simple protocol of jccl_prims.cuh; bytes are copied without conversion.
// Mirrors NCCL's sendrecv kernels (src/device/sendrecv.h), our own code.
#pragma once

#include "jccl_prims.cuh"

namespace jccl {

JCCL_DEV void p2pBatch(const KernelArgs& a) {
    int b = (int)blockId();
    int i = 0;
    while (i < a.nP2p && b >= a.p2p[i].nBlocks) {
        b -= a.p2p[i].nBlocks;
        i++;
    }
    if (i >= a.nP2p) return;
    const P2pOp& op = a.p2p[i];
    const Slice s = sliceOf((int64_t)op.bytes, op.nBlocks, b, 16);
    const Red red = makeRed(a);
    if (op.kind == kP2pSignal) {   // putSignal: its copy completed before this kernel began (stream order)
        if (threadId() == 0) {
            fenceSys();
            atomicAddReleaseSys(reinterpret_cast<uint32_t*>(op.ptr), (uint32_t)op.src);
        }
        return;
    }
    if (op.kind == kP2pWait) {   // waitSignal, or a copy-engine collective's wait for its peers' signals
        int ok = 1;
        if (threadId() == 0) {
            const uint32_t* word = reinterpret_cast<const uint32_t*>(op.ptr);
            // with a counter (waitSignal): the count advances on the GPU, so a replayed graph waits for the next
            // signals rather than for those its first run saw
            const uint32_t want = op.bytes != 0
                    ? atomicAddGpu(reinterpret_cast<uint32_t*>(op.bytes), (uint32_t)op.src) + (uint32_t)op.src
                    : (uint32_t)op.src;
            SpinWatch watch;
            while ((int32_t)(ldAcquireSys(word) - want) < 0) {
                spinPause();
                if (watch.stop(waitCtx(a), op.peer, kWaitSignal)) {
                    ok = 0;
                    break;
                }
            }
        }
        syncBlockAnd(ok);
        return;
    }
    if (op.kind == kP2pCopy) {
        const uint8_t* src[1] = {reinterpret_cast<const uint8_t*>(op.src) + s.start};
        uint8_t* dst[1] = {reinterpret_cast<uint8_t*>(op.ptr) + s.start};
        reduceCopy<uint8_t, true, 1, 1, 4>(src, 1, dst, 1, (uint64_t)s.n, threadId(), blockSize(), red, -1, false);
        return;
    }
    const bool send = op.kind == kP2pSend;
    Chan c;
    chanInit(c, a, b, send ? op.peer : -1, send ? -1 : op.peer);
    uint8_t* buf = reinterpret_cast<uint8_t*>(op.ptr) + s.start;
    chanPrim<uint8_t, true>(c, send ? kInput | kSend : kRecv | kOutput, buf, buf, s.n, red);
    chanSave(c);
}

}  // namespace jccl
