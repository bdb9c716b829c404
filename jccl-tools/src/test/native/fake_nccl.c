/*
 * A fake libnccl for the tests of perf's NCCL binding: the registration calls of nccl.h (ncclMemAlloc/ncclMemFree,
 * ncclCommRegister/ncclCommDeregister, ncclCommWindowRegister/ncclCommWindowDeregister) on host memory, each
 * recorded as one line of a log the test reads with fakeNcclLog(). Built with -DFAKE_NO_WINDOWS (an NCCL before
 * 2.27) or -DFAKE_NO_REGISTER too (before 2.19) it leaves those symbols out, as an older library does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FAKE_VERSION
#define FAKE_VERSION 22800
#endif

typedef int ncclResult_t;
typedef void *ncclComm_t;

static char logText[1 << 16];
static size_t logLength;
static int failRegistrations;

static void record(const char *line) {
    size_t n = strlen(line);
    if (logLength + n + 2 < sizeof(logText)) {
        memcpy(logText + logLength, line, n);
        logLength += n;
        logText[logLength++] = '\n';
        logText[logLength] = 0;
    }
}

const char *fakeNcclLog(void) { return logText; }

void fakeNcclReset(int failRegister) {
    logLength = 0;
    logText[0] = 0;
    failRegistrations = failRegister;
}

ncclResult_t ncclGetVersion(int *version) {
    *version = FAKE_VERSION;
    return 0;
}

const char *ncclGetErrorString(ncclResult_t result) {
    return result == 5 ? "invalid usage (fake)" : "fake error";
}

#ifndef FAKE_NO_REGISTER
ncclResult_t ncclMemAlloc(void **ptr, size_t size) {
    char line[128];
    *ptr = malloc(size ? size : 1);
    snprintf(line, sizeof line, "alloc %p %zu", *ptr, size);
    record(line);
    return 0;
}

ncclResult_t ncclMemFree(void *ptr) {
    char line[128];
    snprintf(line, sizeof line, "free %p", ptr);
    record(line);
    free(ptr);
    return 0;
}

ncclResult_t ncclCommRegister(const ncclComm_t comm, void *buff, size_t size, void **handle) {
    char line[160];
    if (failRegistrations) {
        return 5;
    }
    *handle = malloc(1);
    snprintf(line, sizeof line, "register %p %p %zu %p", comm, buff, size, *handle);
    record(line);
    return 0;
}

ncclResult_t ncclCommDeregister(const ncclComm_t comm, void *handle) {
    char line[128];
    snprintf(line, sizeof line, "deregister %p %p", comm, handle);
    record(line);
    free(handle);
    return 0;
}
#endif

#if !defined(FAKE_NO_WINDOWS) && !defined(FAKE_NO_REGISTER)
ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void *buff, size_t size, void **win, int winFlags) {
    char line[160];
    if (failRegistrations) {
        return 5;
    }
    *win = malloc(1);
    snprintf(line, sizeof line, "winregister %p %p %zu %p %d", comm, buff, size, *win, winFlags);
    record(line);
    return 0;
}

ncclResult_t ncclCommWindowDeregister(ncclComm_t comm, void *win) {
    char line[128];
    snprintf(line, sizeof line, "windereg %p %p", comm, win);
    record(line);
    free(win);
    return 0;
}
#endif
