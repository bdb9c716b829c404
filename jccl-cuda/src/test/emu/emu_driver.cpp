// A CPU emulation of the part of the CUDA driver API that io.jccl.cuda uses (libcuda.so.1's exported names and
// ABIs), so that the whole Java stack, GpuCommunicator, its planner and argument packing, the perf tool and the
// kernels themselves, can run on a machine without a GPU:  -Djccl.cuda.library=<path>/libjccl_emu.so
//  - devices: JCCL_EMU_DEVICES (default 2) of JCCL_EMU_SMS multiprocessors (default 4), compute capability 9.0;
//  - device memory: memfd-backed shared mappings (so CUDA IPC handles work between processes, and, as on a GPU,
//    cannot be opened by the exporting process); host-mapped memory is plain memory;
//  - streams: one worker thread each, running copies, memsets, event records and kernels in order;
//  - kernels: the kernel sources compiled for the host (emu_kernels.cpp); a launch runs every block's threads
//    (at most JCCL_EMU_THREADS per block, default 32) as OS threads and waits for them;
//  - modules: the PTX text is parsed for its .entry names, so a kernel missing from a module fails as on a GPU;
//  - graphs: stream capture records the operations; a graph launch queues them again.
// Memory and IPC live in emu_memory.cpp. Thread-safe where the driver is. Test infrastructure only.
#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "jccl_device.cuh"

#include "emu_internal.h"


namespace jccl {
namespace emu {

thread_local ThreadCoords coords;

static int envInt(const char* name, int dflt) {
    const char* v = getenv(name);
    return v != nullptr && *v != 0 ? atoi(v) : dflt;
}
static int nDevices() { return envInt("JCCL_EMU_DEVICES", 2); }
static int nSms() { return envInt("JCCL_EMU_SMS", 4); }
static int maxThreads() { return envInt("JCCL_EMU_THREADS", 32); }

// ---- kernel registry ---------------------------------------------------------------------------------------
struct KernelEntry {
    std::string name;
    KernelFn fn;
};
static std::map<std::string, KernelEntry*>& registry() {
    static std::map<std::string, KernelEntry*> r;
    return r;
}
Registrar::Registrar(const char* name, KernelFn fn) { registry()[name] = new KernelEntry{name, fn}; }

// ---- blocks ------------------------------------------------------------------------------------------------
// The lanes of one warp (32 consecutive threads of a block; the last warp may be partial).
struct Warp {
    explicit Warp(int n) : bar(n) {}
    std::barrier<> bar;
    std::atomic<int> andFlag[2] = {1, 1};
};
struct Block {
    explicit Block(int n) : bar(n) {
        for (int w = 0; w * 32 < n; w++) warps.emplace_back(new Warp(n - w * 32 < 32 ? n - w * 32 : 32));
    }
    std::barrier<> bar;
    std::atomic<int> andFlag[2] = {1, 1};
    std::vector<std::unique_ptr<Warp>> warps;
    alignas(16) char shared[16][64];
};
static thread_local uint32_t andGen;
static thread_local uint32_t warpAndGen;

void blockSync() { static_cast<Block*>(coords.block)->bar.arrive_and_wait(); }
int blockSyncAnd(int p) {
    Block* b = static_cast<Block*>(coords.block);
    const int idx = andGen++ & 1;
    if (!p) b->andFlag[idx].store(0);
    b->bar.arrive_and_wait();
    const int r = b->andFlag[idx].load();
    b->bar.arrive_and_wait();
    if (coords.tid == 0) b->andFlag[idx].store(1);
    return r;
}
int warpSyncAnd(int p) {
    Warp* w = static_cast<Block*>(coords.block)->warps[coords.tid / 32].get();
    const int idx = warpAndGen++ & 1;
    if (!p) w->andFlag[idx].store(0);
    w->bar.arrive_and_wait();
    const int r = w->andFlag[idx].load();
    w->bar.arrive_and_wait();
    if (coords.tid % 32 == 0) w->andFlag[idx].store(1);
    return r;
}
void* sharedSlot(int slot) { return static_cast<Block*>(coords.block)->shared[slot]; }

static void runKernel(KernelFn fn, const KernelArgs& args, int grid, int threads) {
    std::vector<std::unique_ptr<Block>> blocks;
    std::vector<std::thread> ts;
    for (int b = 0; b < grid; b++) blocks.emplace_back(new Block(threads));
    for (int b = 0; b < grid; b++) {
        for (int t = 0; t < threads; t++) {
            ts.emplace_back([=, &blocks] {
                coords.tid = t;
                coords.bid = b;
                coords.bdim = threads;
                coords.gdim = grid;
                coords.block = blocks[b].get();
                andGen = 0;
                warpAndGen = 0;
                fn(args);
            });
        }
    }
    for (auto& t : ts) t.join();
}

// ---- events and streams ------------------------------------------------------------------------------------
struct Event {
    std::mutex m;
    std::condition_variable cv;
    uint64_t recorded = 0;   // generation of the last record call
    uint64_t done = 0;       // generation that completed
    double ms = 0;
};
static double nowMs() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static void eventComplete(Event* e, uint64_t gen) {
    std::lock_guard<std::mutex> g(e->m);
    if (gen > e->done) {
        e->done = gen;
        e->ms = nowMs();
    }
    e->cv.notify_all();
}
static void eventWait(Event* e, uint64_t gen) {
    std::unique_lock<std::mutex> g(e->m);
    e->cv.wait(g, [&] { return e->done >= gen; });
}

typedef std::function<void()> Op;
struct Graph {
    std::vector<Op> ops;
};

struct Stream {
    int device;
    std::mutex m;
    std::condition_variable cv;
    std::deque<Op> q;
    bool busy = false;
    bool stop = false;
    Graph* capture = nullptr;
    std::thread worker;

    explicit Stream(int dev) : device(dev) {
        worker = std::thread([this] {
            for (;;) {
                Op op;
                {
                    std::unique_lock<std::mutex> g(m);
                    cv.wait(g, [&] { return stop || !q.empty(); });
                    if (q.empty()) return;
                    op = std::move(q.front());
                    q.pop_front();
                    busy = true;
                }
                op();
                {
                    std::lock_guard<std::mutex> g(m);
                    busy = false;
                }
                cv.notify_all();
            }
        });
    }
    void submit(Op op) {
        {
            std::lock_guard<std::mutex> g(m);
            if (capture != nullptr) {
                capture->ops.push_back(std::move(op));
                return;
            }
            q.push_back(std::move(op));
        }
        cv.notify_all();
    }
    void drain() {
        std::unique_lock<std::mutex> g(m);
        cv.wait(g, [&] { return q.empty() && !busy; });
    }
    bool idle() {
        std::lock_guard<std::mutex> g(m);
        return q.empty() && !busy;
    }
    ~Stream() {
        {
            std::lock_guard<std::mutex> g(m);
            stop = true;
        }
        cv.notify_all();
        worker.join();
    }
};

struct Context {
    int device;
};
std::mutex gLock;
static std::vector<Context*>& contexts() {
    static std::vector<Context*> c;
    if (c.empty())
        for (int i = 0; i < nDevices(); i++) c.push_back(new Context{i});
    return c;
}
static std::set<Stream*>& streams() {
    static std::set<Stream*> s;
    return s;
}
static std::set<std::pair<int, int>>& peers() {
    static std::set<std::pair<int, int>> p;
    return p;
}
static thread_local Context* current = nullptr;
int curDevice() { return current != nullptr ? current->device : 0; }
void submit(Stream* s, std::function<void()> op) { s->submit(std::move(op)); }

static Stream* defaultStream(int dev) {
    static std::vector<Stream*> d;
    std::lock_guard<std::mutex> g(gLock);
    if (d.empty())
        for (int i = 0; i < nDevices(); i++) d.push_back(new Stream(i));
    return d[dev];
}
// 0 and CU_STREAM_LEGACY (1) name the legacy default stream, CU_STREAM_PER_THREAD (2) the per-thread one; the
// emulator runs both on its one default stream per device.
Stream* streamOf(void* s) { return (uintptr_t)s > 2 ? static_cast<Stream*>(s) : defaultStream(curDevice()); }
bool capturing(Stream* s) {
    std::lock_guard<std::mutex> g(s->m);
    return s->capture != nullptr;
}

}  // namespace emu
}  // namespace jccl

using namespace jccl::emu;

extern "C" {

CUresult cuInit(unsigned) { return OK; }
CUresult cuDriverGetVersion(int* v) {
    *v = 13000;
    return OK;
}
CUresult cuDeviceGetCount(int* n) {
    *n = nDevices();
    return OK;
}
CUresult cuDeviceGet(int* d, int ordinal) {
    if (ordinal < 0 || ordinal >= nDevices()) return ERR_INVALID_DEVICE;
    *d = ordinal;
    return OK;
}
CUresult cuDeviceGetName(char* name, int len, int dev) {
    snprintf(name, len, "JCCL emulated GPU %d", dev);
    return OK;
}
CUresult cuDeviceGetAttribute(int* v, int attr, int dev) {
    switch (attr) {
        case 16: *v = nSms(); break;          // multiprocessors
        case 75: *v = 9; break;               // compute capability
        case 76: *v = 0; break;
        case 33: *v = dev + 1; break;         // PCI bus
        case 19: case 41: *v = 1; break;      // host mapping, unified addressing
        default: *v = 0;
    }
    return OK;
}
CUresult cuDeviceGetPCIBusId(char* buf, int len, int dev) {
    snprintf(buf, len, "0000:%02x:00.0", dev + 1);
    return OK;
}
CUresult cuDeviceGetByPCIBusId(int* dev, const char* bus) {
    unsigned d, b, f, g;
    if (sscanf(bus, "%x:%x:%x.%x", &d, &b, &f, &g) != 4 || b < 1 || (int)b > nDevices()) return ERR_INVALID_DEVICE;
    *dev = (int)b - 1;
    return OK;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, int) {
    *bytes = 64ull << 30;
    return OK;
}
CUresult cuDeviceCanAccessPeer(int* can, int dev, int peer) {
    *can = dev != peer;
    return OK;
}
CUresult cuDeviceGetP2PAttribute(int* v, int, int, int) {
    *v = 1;
    return OK;
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, int dev) {
    *ctx = contexts()[dev];
    return OK;
}
CUresult cuDevicePrimaryCtxRelease_v2(int) { return OK; }
CUresult cuCtxSetCurrent(void* ctx) {
    current = static_cast<Context*>(ctx);
    return OK;
}
CUresult cuCtxGetCurrent(void** ctx) {
    *ctx = current;
    return OK;
}
CUresult cuCtxEnablePeerAccess(void* peer, unsigned) {
    std::lock_guard<std::mutex> g(gLock);
    auto key = std::make_pair(curDevice(), static_cast<Context*>(peer)->device);
    return peers().insert(key).second ? OK : ERR_PEER_ENABLED;
}
CUresult cuCtxSynchronize() {
    std::vector<Stream*> ss;
    {
        std::lock_guard<std::mutex> g(gLock);
        for (Stream* s : streams())
            if (s->device == curDevice()) ss.push_back(s);
    }
    for (Stream* s : ss) s->drain();
    defaultStream(curDevice())->drain();
    return OK;
}

// ---- streams and events ----
static CUresult newStream(void** s) {
    Stream* st = new Stream(curDevice());
    std::lock_guard<std::mutex> g(gLock);
    streams().insert(st);
    *s = st;
    return OK;
}
CUresult cuStreamCreate(void** s, unsigned) { return newStream(s); }
CUresult cuStreamCreateWithPriority(void** s, unsigned, int) { return newStream(s); }
CUresult cuStreamDestroy_v2(void* s) {
    Stream* st = static_cast<Stream*>(s);
    st->drain();
    {
        std::lock_guard<std::mutex> g(gLock);
        streams().erase(st);
    }
    delete st;
    return OK;
}
CUresult cuStreamGetCtx(void* s, void** ctx) {
    *ctx = (uintptr_t)s > 2 ? contexts()[static_cast<Stream*>(s)->device] : current;
    return OK;
}
CUresult cuStreamSynchronize(void* s) {
    streamOf(s)->drain();
    return OK;
}
CUresult cuStreamQuery(void* s) { return streamOf(s)->idle() ? OK : ERR_NOT_READY; }
CUresult cuEventCreate(void** e, unsigned) {
    *e = new Event();
    return OK;
}
CUresult cuEventDestroy_v2(void* e) {
    delete static_cast<Event*>(e);
    return OK;
}
CUresult cuEventRecord(void* ev, void* s) {
    Event* e = static_cast<Event*>(ev);
    uint64_t gen;
    {
        std::lock_guard<std::mutex> g(e->m);
        gen = ++e->recorded;
    }
    streamOf(s)->submit([=] { eventComplete(e, gen); });
    return OK;
}
CUresult cuStreamWaitEvent(void* s, void* ev, unsigned) {
    Event* e = static_cast<Event*>(ev);
    uint64_t gen;
    {
        std::lock_guard<std::mutex> g(e->m);
        gen = e->recorded;
    }
    streamOf(s)->submit([=] { eventWait(e, gen); });
    return OK;
}
CUresult cuEventSynchronize(void* ev) {
    Event* e = static_cast<Event*>(ev);
    uint64_t gen;
    {
        std::lock_guard<std::mutex> g(e->m);
        gen = e->recorded;
    }
    eventWait(e, gen);
    return OK;
}
CUresult cuEventQuery(void* ev) {
    Event* e = static_cast<Event*>(ev);
    std::lock_guard<std::mutex> g(e->m);
    return e->done >= e->recorded ? OK : ERR_NOT_READY;
}
CUresult cuEventElapsedTime_v2(float* ms, void* a, void* b) {
    *ms = (float)(static_cast<Event*>(b)->ms - static_cast<Event*>(a)->ms);
    return OK;
}

// ---- modules and launches ----
struct Module {
    std::set<std::string> entries;
};
static Module* parseModule(const char* image) {
    Module* m = new Module();
    const char* p = image;
    while ((p = strstr(p, ".entry ")) != nullptr) {
        p += 7;
        while (*p == ' ') p++;
        const char* e = p;
        while (*e != '(' && *e != ' ' && *e != '\n' && *e != 0) e++;
        m->entries.insert(std::string(p, e));
        p = e;
    }
    return m;
}
static CUresult lookup(Module* m, const char* name, void** fn) {
    if (m->entries.count(name) == 0) return ERR_NOT_FOUND;
    auto it = registry().find(name);
    if (it == registry().end()) return ERR_NOT_FOUND;
    *fn = it->second;
    return OK;
}
CUresult cuModuleLoadData(void** mod, const void* image) {
    *mod = parseModule(static_cast<const char*>(image));
    return OK;
}
CUresult cuModuleUnload(void* mod) {
    delete static_cast<Module*>(mod);
    return OK;
}
CUresult cuModuleGetFunction(void** fn, void* mod, const char* name) {
    return lookup(static_cast<Module*>(mod), name, fn);
}
CUresult cuLibraryLoadData(void** lib, const void* image, void*, void*, unsigned, void*, void*, unsigned) {
    *lib = parseModule(static_cast<const char*>(image));
    return OK;
}
CUresult cuLibraryGetKernel(void** k, void* lib, const char* name) {
    return lookup(static_cast<Module*>(lib), name, k);
}
CUresult cuFuncSetAttribute(void*, int, int) { return OK; }
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, void*, int, size_t) {
    *n = 2;   // as LL128 on an H200 (every block of a launch runs at once here anyway)
    return OK;
}
CUresult cuLaunchKernel(void* f, unsigned gx, unsigned, unsigned, unsigned bx, unsigned, unsigned, unsigned,
                        void* stream, void** params, void** extra) {
    if (params == nullptr || extra != nullptr) return ERR_INVALID_VALUE;
    KernelEntry* k = static_cast<KernelEntry*>(f);
    jccl::KernelArgs args;
    memcpy(&args, params[0], sizeof(args));
    const int threads = (int)bx < maxThreads() ? (int)bx : maxThreads();
    const int grid = (int)gx;
    KernelFn fn = k->fn;
    streamOf(stream)->submit([=] { runKernel(fn, args, grid, threads); });
    return OK;
}
// CUlaunchConfig as cuda.h lays it out; the emulator ignores the attributes (programmatic launches only overlap a
// kernel's start with the end of the one before it, which the emulator's streams serialize anyway).
struct EmuLaunchConfig {
    unsigned gx, gy, gz, bx, by, bz, smem;
    void* stream;
    void* attrs;
    unsigned numAttrs;
};
CUresult cuLaunchKernelEx(const EmuLaunchConfig* c, void* f, void** params, void** extra) {
    if (c == nullptr) return ERR_INVALID_VALUE;
    return cuLaunchKernel(f, c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->smem, c->stream, params, extra);
}
CUresult cuLaunchCooperativeKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned smem, void* stream, void** params) {
    return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, stream, params, nullptr);
}

// ---- capture and graphs ----
CUresult cuStreamBeginCapture_v2(void* s, int) {
    Stream* st = streamOf(s);
    std::lock_guard<std::mutex> g(st->m);
    if (st->capture != nullptr) return ERR_CAPTURE_UNSUPPORTED;
    st->capture = new Graph();
    return OK;
}
CUresult cuStreamEndCapture(void* s, void** graph) {
    Stream* st = streamOf(s);
    std::lock_guard<std::mutex> g(st->m);
    if (st->capture == nullptr) return ERR_INVALID_VALUE;
    *graph = st->capture;
    st->capture = nullptr;
    return OK;
}
CUresult cuStreamIsCapturing(void* s, int* status) {
    Stream* st = streamOf(s);
    std::lock_guard<std::mutex> g(st->m);
    *status = st->capture != nullptr ? 1 : 0;
    return OK;
}
CUresult cuThreadExchangeStreamCaptureMode(int*) { return OK; }
CUresult cuGraphInstantiateWithFlags(void** exec, void* graph, unsigned long long) {
    *exec = new Graph(*static_cast<Graph*>(graph));
    return OK;
}
CUresult cuGraphLaunch(void* exec, void* s) {
    Stream* st = streamOf(s);
    for (const Op& op : static_cast<Graph*>(exec)->ops) st->submit(op);
    return OK;
}
CUresult cuGraphUpload(void*, void*) { return OK; }
CUresult cuGraphExecDestroy(void* exec) {
    delete static_cast<Graph*>(exec);
    return OK;
}
CUresult cuGraphDestroy(void* graph) {
    delete static_cast<Graph*>(graph);
    return OK;
}

// ---- errors ----
static const char* errName(int rc) {
    switch (rc) {
        case OK: return "CUDA_SUCCESS";
        case ERR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
        case ERR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
        case ERR_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
        case ERR_INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
        case ERR_INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
        case ERR_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
        case ERR_NOT_READY: return "CUDA_ERROR_NOT_READY";
        case ERR_PEER_ENABLED: return "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED";
        default: return nullptr;
    }
}
CUresult cuGetErrorName(int rc, const char** s) {
    *s = errName(rc);
    return *s != nullptr ? OK : ERR_INVALID_VALUE;
}
CUresult cuGetErrorString(int rc, const char** s) {
    *s = errName(rc) != nullptr ? "emulated CUDA error" : nullptr;
    return *s != nullptr ? OK : ERR_INVALID_VALUE;
}

}  // extern "C"
