// The kernels that only move bytes (allGather, broadcast, allToAll, send/recv, gather, scatter): copy.ptx.
#include "jccl_kernels.cuh"

JCCL_COPY_KERNELS()
