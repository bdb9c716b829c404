// The extern "C" kernel entry points, as macros shared by the PTX builds (kernels_reduce.cu, kernels_copy.cu) and
// the CPU emulator. Names: jccl_<algorithm>_<type>_<sum|any> for the reduction kernels (sum: compiled for sum, avg
// and preMulSum only; any: prod, min and max chosen at run time), jccl_<algorithm>_copy and jccl_p2p for the
// kernels that only move bytes, and jccl_compute_probe (perf's stand-in for compute beside the collectives).
// io.jccl.cuda.internal.kernels.KernelModules builds the same names.
#pragma once

#include "coll_allreduce.cuh"
#include "coll_ll.cuh"
#include "coll_ll128.cuh"
#include "coll_p2p.cuh"
#include "coll_ring.cuh"
#include "compute_probe.cuh"

// A kernel entry point: the programmatic-launch wait (kernelEntry), then the collective.
#define JCCL_ENTRY(name, call) \
    JCCL_KERNEL(name) {        \
        jccl::kernelEntry();   \
        call;                  \
    }

#define JCCL_REDUCE_KERNELS(T, TN, OC, SUMONLY) JCCL_REDUCE_KERNELS_I(T, TN, OC, SUMONLY)
#define JCCL_REDUCE_KERNELS_I(T, TN, OC, SUMONLY)                                              \
    JCCL_ENTRY(jccl_ll_##TN##_##OC, (jccl::llColl<T, SUMONLY, false>(a)))                       \
    JCCL_ENTRY(jccl_llp_##TN##_##OC, (jccl::llPackedAllReduce<T, SUMONLY>(a)))                  \
    JCCL_ENTRY(jccl_ll128_##TN##_##OC, (jccl::ll128AllReduce<T, SUMONLY>(a)))                   \
    JCCL_ENTRY(jccl_push_##TN##_##OC, (jccl::pushAllReduce<T, SUMONLY>(a)))                     \
    JCCL_ENTRY(jccl_pull_##TN##_##OC, (jccl::pullAllReduce<T, SUMONLY>(a)))                     \
    JCCL_ENTRY(jccl_ring_##TN##_##OC, (jccl::ringColl<T, SUMONLY, false>(a)))

#define JCCL_COPY_KERNELS()                                                                     \
    JCCL_ENTRY(jccl_ll_copy, (jccl::llColl<uint8_t, true, true>(a)))                            \
    JCCL_ENTRY(jccl_ring_copy, (jccl::ringColl<uint8_t, true, true>(a)))                        \
    JCCL_ENTRY(jccl_p2p, (jccl::p2pBatch(a)))                                                  \
    JCCL_KERNEL(jccl_compute_probe) { jccl::computeProbe(a); }

// Every element type: X(C type, kernel suffix).
#define JCCL_FOR_EACH_TYPE(X)            \
    X(float, f32)                        \
    X(__half, f16)                       \
    X(__nv_bfloat16, bf16)               \
    X(double, f64)                       \
    X(int8_t, i8)                        \
    X(uint8_t, u8)                       \
    X(int32_t, i32)                      \
    X(uint32_t, u32)                     \
    X(int64_t, i64)                      \
    X(uint64_t, u64)                     \
    X(jccl::fp8e4m3, e4m3)               \
    X(jccl::fp8e5m2, e5m2)
