// Host implementation of the JCCL device platform layer (see src/main/cuda/jccl_device.cuh), for the CPU emulator:
// every GPU thread of a kernel is an OS thread, block barriers are std::barrier, system-scope acquire/release
// operations are C++ atomics, and spin loops yield. The kernel sources compile unchanged against it, so their
// logic (indexing, step sequences, epochs, flags) runs and is checked on machines without a GPU. What it cannot
// check: the GPU memory model (weaker than x86's) and performance.
#pragma once

#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <vector_functions.h>

namespace jccl {
namespace emu {
// The calling emulated GPU thread's coordinates (set by the emulator before it runs a kernel body).
struct ThreadCoords {
    uint32_t tid;
    uint32_t bid;
    uint32_t bdim;
    uint32_t gdim;
    void* block;
};
extern thread_local ThreadCoords coords;
void blockSync();
int blockSyncAnd(int p);
int warpSyncAnd(int p);
void* sharedSlot(int slot);
typedef void (*KernelFn)(KernelArgs);
struct Registrar {
    Registrar(const char* name, KernelFn fn);
};
}  // namespace emu
}  // namespace jccl

#define JCCL_DEV inline
#define JCCL_COLD inline
#define JCCL_SHARED(T, name, slot) T& name = *reinterpret_cast<T*>(jccl::emu::sharedSlot(slot))
#define JCCL_KERNEL(name)                                                    \
    extern "C" void name(jccl::KernelArgs a);                                \
    static jccl::emu::Registrar jccl_reg_##name(#name, &name);               \
    extern "C" void name(jccl::KernelArgs a)

namespace jccl {

inline uint32_t threadId() { return emu::coords.tid; }
inline uint32_t blockId() { return emu::coords.bid; }
inline uint32_t blockSize() { return emu::coords.bdim; }
inline uint32_t gridSize() { return emu::coords.gdim; }
inline void syncBlock() { emu::blockSync(); }
inline int syncBlockAnd(int p) { return emu::blockSyncAnd(p); }
inline void spinPause() { sched_yield(); }
inline void kernelEntry() {}
inline void fenceGpu() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void fenceSys() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline uint32_t atomicAddGpu(uint32_t* p, uint32_t v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline void atomicAddReleaseSys(uint32_t* p, uint32_t v) { __atomic_fetch_add(p, v, __ATOMIC_RELEASE); }

inline void stReleaseSys(uint32_t* p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
inline uint32_t ldAcquireSys(const uint32_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline void stReleaseSys64(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
inline void stRelaxedSys64(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
inline uint64_t ldAcquireSys64(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline uint32_t ldVolatile(const uint32_t* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
inline uint64_t ldVolatile64(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
inline void stVolatile(uint32_t* p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
inline void stVolatile64(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }

inline uint4 loadPack(const void* p) {
    uint4 v;
    memcpy(&v, p, 16);
    return v;
}
inline void storePack(void* p, uint4 v) { memcpy(p, &v, 16); }
template <typename B>
inline B loadBits(const B* p) {
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

// An LL line written by one 16-byte store on the GPU: here data first, then both flags with release, so a
// reader that sees both flags (acquire) sees the data.
inline void storeLL(void* p, uint64_t data, uint32_t flag) {
    uint32_t* q = reinterpret_cast<uint32_t*>(p);
    __atomic_store_n(&q[0], (uint32_t)data, __ATOMIC_RELAXED);
    __atomic_store_n(&q[2], (uint32_t)(data >> 32), __ATOMIC_RELAXED);
    __atomic_store_n(&q[1], flag, __ATOMIC_RELEASE);
    __atomic_store_n(&q[3], flag, __ATOMIC_RELEASE);
}
inline bool loadLL(const void* p, uint32_t flag, uint64_t* data) {
    const uint32_t* q = reinterpret_cast<const uint32_t*>(p);
    const uint32_t f1 = __atomic_load_n(&q[3], __ATOMIC_ACQUIRE);
    const uint32_t f0 = __atomic_load_n(&q[1], __ATOMIC_ACQUIRE);
    if (f0 != flag || f1 != flag) return false;
    const uint32_t d0 = __atomic_load_n(&q[0], __ATOMIC_RELAXED);
    const uint32_t d1 = __atomic_load_n(&q[2], __ATOMIC_RELAXED);
    *data = ((uint64_t)d1 << 32) | d0;
    return true;
}
inline void storeLLPacked(void* p, uint32_t d0, uint32_t d1, uint32_t d2, uint32_t flag) {
    uint32_t* q = reinterpret_cast<uint32_t*>(p);
    __atomic_store_n(&q[0], d0, __ATOMIC_RELAXED);
    __atomic_store_n(&q[1], d1, __ATOMIC_RELAXED);
    __atomic_store_n(&q[2], d2, __ATOMIC_RELAXED);
    __atomic_store_n(&q[3], flag, __ATOMIC_RELEASE);
}
inline bool loadLLPacked(const void* p, uint32_t flag, uint32_t* d) {
    const uint32_t* q = reinterpret_cast<const uint32_t*>(p);
    if (__atomic_load_n(&q[3], __ATOMIC_ACQUIRE) != flag) return false;
    for (int i = 0; i < 3; i++) d[i] = __atomic_load_n(&q[i], __ATOMIC_RELAXED);
    return true;
}
// LL128 on CPU threads: a line is not written whole here, so the flag lane publishes its warp's lines after a
// warp barrier (release), and the lanes read their data only after the flag lanes saw the flag (acquire + barrier).
inline void storeLL128(void* p, uint64_t lo, uint64_t hi, bool flagLane) {
    uint64_t* q = reinterpret_cast<uint64_t*>(p);
    __atomic_store_n(&q[0], lo, __ATOMIC_RELAXED);
    if (!flagLane) __atomic_store_n(&q[1], hi, __ATOMIC_RELAXED);
    emu::warpSyncAnd(1);
    if (flagLane) __atomic_store_n(&q[1], hi, __ATOMIC_RELEASE);
}
inline bool pollLL128(const void* p, uint64_t flag, bool flagLane, uint64_t* lo, uint64_t* hi) {
    const uint64_t* q = reinterpret_cast<const uint64_t*>(p);
    const int ok = !flagLane || __atomic_load_n(&q[1], __ATOMIC_ACQUIRE) == flag;
    if (!emu::warpSyncAnd(ok)) return false;
    *lo = __atomic_load_n(&q[0], __ATOMIC_RELAXED);
    *hi = __atomic_load_n(&q[1], __ATOMIC_RELAXED);
    return true;
}
inline bool warpAny(bool p) { return emu::warpSyncAnd(!p) == 0; }
inline void clearLL(void* p) {
    uint32_t* q = reinterpret_cast<uint32_t*>(p);
    for (int i = 0; i < 4; i++) __atomic_store_n(&q[i], 0u, __ATOMIC_RELAXED);
}
inline uint64_t abortWord(uint64_t abortArea) {
    return __atomic_load_n(reinterpret_cast<const uint64_t*>(abortArea), __ATOMIC_ACQUIRE);
}
inline uint64_t nowNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

}  // namespace jccl
