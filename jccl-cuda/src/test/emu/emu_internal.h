// Declarations shared by the CPU emulator's translation units (emu_driver.cpp: devices, streams, events, modules,
// launches, graphs; emu_memory.cpp: memory and IPC). Test infrastructure only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

#include "jccl_device.cuh"

typedef int CUresult;
enum : int {
    OK = 0, ERR_INVALID_VALUE = 1, ERR_OUT_OF_MEMORY = 2, ERR_INVALID_DEVICE = 101, ERR_INVALID_CONTEXT = 201,
    ERR_INVALID_HANDLE = 400, ERR_NOT_FOUND = 500, ERR_NOT_READY = 600, ERR_PEER_ENABLED = 704,
    ERR_CAPTURE_UNSUPPORTED = 900
};

namespace jccl {
namespace emu {
struct Stream;
/** Guards the emulator's global tables. */
extern std::mutex gLock;
/** The device of the calling thread's current context (0 when none). */
int curDevice();
/** The stream a driver call names (its device's default stream for NULL). */
Stream* streamOf(void* s);
/** Whether the stream records into a capture. */
bool capturing(Stream* s);
/** Queues an operation on a stream (or records it into the stream's capture). */
void submit(Stream* s, std::function<void()> op);
}  // namespace emu
}  // namespace jccl
