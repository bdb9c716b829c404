// CPU emulator of the CUDA driver: device and host memory, copies, memsets, pointer attributes and legacy IPC
// handles. Device memory is memfd-backed and mapped shared, so an IPC handle (pid, fd) opens in another process
// through /proc/<pid>/fd and, as on a GPU, not in the exporting process. Test infrastructure only.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu_internal.h"

#include <chrono>
#include <thread>

namespace jccl {
namespace emu {
// ---- memory ------------------------------------------------------------------------------------------------
struct Allocation {
    int fd;
    size_t size;
    bool mapped;   // opened from another process's IPC handle
    int device;    // the device current when it was allocated or mapped
    bool pooled;   // from the default memory pool (cuMemAllocAsync): only its own device has access
};
static std::map<uint64_t, Allocation>& allocations() {
    static std::map<uint64_t, Allocation> a;
    return a;
}
// Pinned host memory (cuMemHostAlloc), so that pointer attributes can call it host memory: base -> size.
static std::map<uint64_t, size_t>& hostAllocations() {
    static std::map<uint64_t, size_t> h;
    return h;
}
struct IpcHandle {
    char reserved[64];
};
struct IpcPayload {
    uint32_t magic;
    int32_t pid;
    int32_t fd;
    uint32_t pad;
    uint64_t size;
};
static constexpr uint32_t kIpcMagic = 0x4a454d55;  // "JEMU"

}  // namespace emu
}  // namespace jccl

using namespace jccl::emu;

extern "C" {

// ---- memory ----
CUresult cuMemAlloc_v2(uint64_t* p, size_t size) {
    int fd = memfd_create("jccl-emu", 0);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) return ERR_OUT_OF_MEMORY;
    void* m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        close(fd);
        return ERR_OUT_OF_MEMORY;
    }
    std::lock_guard<std::mutex> g(gLock);
    allocations()[(uint64_t)m] = Allocation{fd, size, false, curDevice(), false};
    *p = (uint64_t)m;
    return OK;
}
// The default pool's memory: device memory like cuMemAlloc's (allocated at once, not stream-ordered), marked pooled.
CUresult cuMemAllocAsync(uint64_t* p, size_t size, void*) {
    CUresult rc = cuMemAlloc_v2(p, size);
    if (rc == OK) {
        std::lock_guard<std::mutex> g(gLock);
        allocations()[*p].pooled = true;
    }
    return rc;
}
CUresult cuMemFree_v2(uint64_t p) {
    std::lock_guard<std::mutex> g(gLock);
    auto it = allocations().find(p);
    if (it == allocations().end() || it->second.mapped) return ERR_INVALID_VALUE;
    munmap((void*)p, it->second.size);
    close(it->second.fd);
    allocations().erase(it);
    return OK;
}
CUresult cuMemFreeAsync(uint64_t p, void* s) {
    submit(streamOf(s), [=] { cuMemFree_v2(p); });
    return OK;
}
CUresult cuMemHostAlloc(void** p, size_t size, unsigned) {
    if (posix_memalign(p, 4096, size) != 0) return ERR_OUT_OF_MEMORY;
    memset(*p, 0, size);
    std::lock_guard<std::mutex> g(gLock);
    hostAllocations()[(uint64_t)*p] = size;
    return OK;
}
CUresult cuMemFreeHost(void* p) {
    {
        std::lock_guard<std::mutex> g(gLock);
        hostAllocations().erase((uint64_t)p);
    }
    free(p);
    return OK;
}
// Host memory is the emulated devices' memory already: registering it only checks the arguments.
CUresult cuMemHostRegister_v2(void* p, size_t size, unsigned) { return p == nullptr || size == 0 ? ERR_INVALID_VALUE : OK; }
CUresult cuMemHostUnregister(void* p) { return p == nullptr ? ERR_INVALID_VALUE : OK; }
CUresult cuMemHostGetDevicePointer_v2(uint64_t* d, void* h, unsigned) {
    *d = (uint64_t)h;
    return OK;
}
CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
    *total = 64ull << 30;
    *free = 60ull << 30;
    return OK;
}
CUresult cuMemcpyHtoD_v2(uint64_t d, const void* h, size_t n) {
    memcpy((void*)d, h, n);
    return OK;
}
CUresult cuMemcpyDtoH_v2(void* h, uint64_t d, size_t n) {
    memcpy(h, (void*)d, n);
    return OK;
}
CUresult cuMemcpyDtoD_v2(uint64_t d, uint64_t s, size_t n) {
    memmove((void*)d, (void*)s, n);
    return OK;
}
static CUresult copyAsync(uint64_t d, uint64_t s, size_t n, void* stream, long delayUs = 0) {
    submit(streamOf(stream), [=] {
        if (delayUs > 0) std::this_thread::sleep_for(std::chrono::microseconds(delayUs));
        memmove((void*)d, (void*)s, n);
    });
    return OK;
}
// JCCL_EMU_PEER_COPY_DELAY_US: each stream-ordered copy between unified or peer addresses (what putSignal queues)
// waits this long before it moves its bytes, a slow copy engine, so that tests of what is ordered behind such a copy
// (putSignal's signal) would see any work that is not.
static long peerCopyDelayUs() {
    static const long us = [] {
        const char* v = getenv("JCCL_EMU_PEER_COPY_DELAY_US");
        return v != nullptr && *v != 0 ? atol(v) : 0L;
    }();
    return us;
}
CUresult cuMemcpyHtoDAsync_v2(uint64_t d, const void* h, size_t n, void* s) { return copyAsync(d, (uint64_t)h, n, s); }
CUresult cuMemcpyDtoHAsync_v2(void* h, uint64_t d, size_t n, void* s) { return copyAsync((uint64_t)h, d, n, s); }
CUresult cuMemcpyDtoDAsync_v2(uint64_t d, uint64_t s, size_t n, void* st) { return copyAsync(d, s, n, st); }
CUresult cuMemcpyAsync(uint64_t d, uint64_t s, size_t n, void* st) {
    return copyAsync(d, s, n, st, peerCopyDelayUs());
}
// CUmemcpyAttributes: source access order, source and destination location hints, flags.
struct MemcpyAttributes {
    int srcAccessOrder;
    int srcLocType, srcLocId;
    int dstLocType, dstLocId;
    unsigned flags;
};
static_assert(sizeof(MemcpyAttributes) == 24, "CUmemcpyAttributes is 24 bytes");
// CUDA 13's batch copy (no failIdx). As the driver: never the legacy stream, never under capture, every copy covered
// by a valid attribute (order 1..3, flags 0 or PREFER_OVERLAP_WITH_COMPUTE), the first attribute at copy 0.
CUresult cuMemcpyBatchAsync_v2(uint64_t* dsts, uint64_t* srcs, size_t* sizes, size_t count, MemcpyAttributes* attrs,
                               size_t* attrIdxs, size_t numAttrs, void* st) {
    if ((uintptr_t)st <= 2 || count == 0 || dsts == nullptr || srcs == nullptr || sizes == nullptr
            || numAttrs == 0 || attrs == nullptr || attrIdxs == nullptr || attrIdxs[0] != 0) {
        return ERR_INVALID_VALUE;
    }
    for (size_t k = 0; k < numAttrs; k++) {
        if (attrs[k].srcAccessOrder < 1 || attrs[k].srcAccessOrder > 3 || attrs[k].flags > 1
                || attrIdxs[k] >= count || (k > 0 && attrIdxs[k] <= attrIdxs[k - 1])) {
            return ERR_INVALID_VALUE;
        }
    }
    if (capturing(streamOf(st))) return ERR_CAPTURE_UNSUPPORTED;
    for (size_t i = 0; i < count; i++) copyAsync(dsts[i], srcs[i], sizes[i], st, peerCopyDelayUs());
    return OK;
}
CUresult cuMemcpyPeerAsync(uint64_t d, void*, uint64_t s, void*, size_t n, void* st) {
    return copyAsync(d, s, n, st, peerCopyDelayUs());
}
CUresult cuMemcpyPeer(uint64_t d, void*, uint64_t s, void*, size_t n) {
    memmove((void*)d, (void*)s, n);
    return OK;
}
CUresult cuMemsetD8_v2(uint64_t d, unsigned char v, size_t n) {
    memset((void*)d, v, n);
    return OK;
}
CUresult cuMemsetD8Async(uint64_t d, unsigned char v, size_t n, void* s) {
    submit(streamOf(s), [=] { memset((void*)d, v, n); });
    return OK;
}
CUresult cuMemsetD32Async(uint64_t d, unsigned v, size_t n, void* s) {
    submit(streamOf(s), [=] {
        uint32_t* p = (uint32_t*)d;
        for (size_t i = 0; i < n; i++) p[i] = v;
    });
    return OK;
}
// Stream memory operations: the wait spins (yielding) on the word as the GPU's front end would, wrap-safe GEQ only.
CUresult cuStreamWriteValue32_v2(void* s, uint64_t addr, uint32_t v, unsigned) {
    submit(streamOf(s), [=] { __atomic_store_n((uint32_t*)addr, v, __ATOMIC_RELEASE); });
    return OK;
}
CUresult cuStreamWaitValue32_v2(void* s, uint64_t addr, uint32_t v, unsigned flags) {
    if (flags != 0) return ERR_INVALID_VALUE;   // CU_STREAM_WAIT_VALUE_GEQ
    submit(streamOf(s), [=] {
        while ((int32_t)(__atomic_load_n((uint32_t*)addr, __ATOMIC_ACQUIRE) - v) < 0) sched_yield();
    });
    return OK;
}
CUresult cuPointerGetAttribute(void* data, int attr, uint64_t ptr) {
    std::lock_guard<std::mutex> g(gLock);
    for (auto& [base, a] : allocations()) {
        if (ptr >= base && ptr < base + a.size) {
            if (attr == 11) *(uint64_t*)data = base;
            else if (attr == 12) *(size_t*)data = a.size;
            else if (attr == 4) *(uint64_t*)data = ptr;   // host pointer: the emulator's device memory is the CPU's
            else if (attr == 2) *(int*)data = 2;
            else if (attr == 9) *(int*)data = a.device;
            else if (attr == 10) *(int*)data = a.pooled ? 0 : 1;                              // legacy IPC capable
            else if (attr == 16) *(uint64_t*)data = !a.pooled || a.device == curDevice() ? 3 : 0;  // access flags
            else *(int*)data = 0;
            return OK;
        }
    }
    for (auto& [base, size] : hostAllocations()) {
        if (ptr >= base && ptr < base + size) {
            if (attr == 11) *(uint64_t*)data = base;
            else if (attr == 12) *(size_t*)data = size;
            else if (attr == 4) *(uint64_t*)data = ptr;
            else if (attr == 2) *(int*)data = 1;
            else *(int*)data = 0;
            return OK;
        }
    }
    return ERR_INVALID_VALUE;
}

// ---- IPC ----
CUresult cuIpcGetMemHandle(IpcHandle* h, uint64_t base) {
    std::lock_guard<std::mutex> g(gLock);
    auto it = allocations().find(base);
    if (it == allocations().end() || it->second.mapped) return ERR_INVALID_VALUE;
    IpcPayload p{kIpcMagic, (int32_t)getpid(), it->second.fd, 0, it->second.size};
    memset(h, 0, sizeof(*h));
    memcpy(h, &p, sizeof(p));
    return OK;
}
CUresult cuIpcOpenMemHandle_v2(uint64_t* out, IpcHandle h, unsigned) {
    IpcPayload p;
    memcpy(&p, &h, sizeof(p));
    if (p.magic != kIpcMagic) return ERR_INVALID_VALUE;
    if (p.pid == getpid()) return ERR_INVALID_CONTEXT;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", p.pid, p.fd);
    int fd = open(path, O_RDWR);
    if (fd < 0) return ERR_INVALID_HANDLE;
    void* m = mmap(nullptr, p.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        close(fd);
        return ERR_OUT_OF_MEMORY;
    }
    std::lock_guard<std::mutex> g(gLock);
    allocations()[(uint64_t)m] = Allocation{fd, p.size, true, curDevice(), false};
    *out = (uint64_t)m;
    return OK;
}
CUresult cuIpcCloseMemHandle(uint64_t p) {
    std::lock_guard<std::mutex> g(gLock);
    auto it = allocations().find(p);
    if (it == allocations().end() || !it->second.mapped) return ERR_INVALID_VALUE;
    munmap((void*)p, it->second.size);
    close(it->second.fd);
    allocations().erase(it);
    return OK;
}

}  // extern "C"
