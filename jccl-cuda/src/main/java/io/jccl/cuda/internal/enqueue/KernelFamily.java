package io.jccl.cuda.internal.enqueue;

import io.jccl.DataType;

/**
 * The kernels JCCL launches, by algorithm: reduction families are compiled per element type and operation class
 * (module {@code reduce_<type>_<sum|any>.ptx}, kernel {@code jccl_<name>_<type>_<sum|any>}), the copy families once
 * (module {@code copy.ptx}). Names follow the macros of src/main/cuda/jccl_kernels.cuh. Constant family; mirrors
 * NCCL's per-(function, algorithm, protocol, type, op) device function table.
 */
public enum KernelFamily {
    /** Barrier-free one-hop LL: allReduce, reduceScatter, reduce. */
    LL("ll", true),
    /** Packed LL allReduce on 2 ranks (12 data bytes per 16-byte line). */
    LL_PACKED("llp", true),
    /** LL128 allReduce on 2 ranks (128-byte lines, 120 data bytes). */
    LL128("ll128", true),
    /** Push one-shot allReduce. */
    PUSH("push", true),
    /** Pull one-shot / two-shot allReduce (peer pointers). */
    PULL("pull", true),
    /** Ring, Simple protocol: allReduce, reduceScatter, reduce. */
    RING("ring", true),
    /** Barrier-free one-hop LL: allGather, broadcast, allToAll. */
    LL_COPY("ll", false),
    /** Ring, Simple protocol: allGather, broadcast. */
    RING_COPY("ring", false),
    /** Fused sends, receives and copies: send/recv, allToAll, gather, scatter. */
    P2P("p2p", false);

    private final String name;
    private final boolean reduces;

    KernelFamily(String name, boolean reduces) {
        this.name = name;
        this.reduces = reduces;
    }

    /** True for the families compiled per type and operation class. */
    public boolean reduces() {
        return reduces;
    }

    /** The short name shown in plans ("ll", "ring", ...). */
    public String shortName() {
        return name;
    }

    /** The kernel's entry name. */
    public String kernelName(DataType type, boolean sumOnly) {
        if (!reduces) {
            return this == P2P ? "jccl_p2p" : "jccl_" + name + "_copy";
        }
        return "jccl_" + name + "_" + typeSuffix(type) + "_" + (sumOnly ? "sum" : "any");
    }

    /** The PTX module (resource name without .ptx) holding the kernel. */
    public String module(DataType type, boolean sumOnly) {
        return reduces ? "reduce_" + typeSuffix(type) + "_" + (sumOnly ? "sum" : "any") : "copy";
    }

    /** The kernel suffix of an element type. */
    public static String typeSuffix(DataType type) {
        return switch (type) {
            case FLOAT32 -> "f32";
            case FLOAT16 -> "f16";
            case BFLOAT16 -> "bf16";
            case FLOAT64 -> "f64";
            case INT8 -> "i8";
            case UINT8 -> "u8";
            case INT32 -> "i32";
            case UINT32 -> "u32";
            case INT64 -> "i64";
            case UINT64 -> "u64";
            case FLOAT8_E4M3 -> "e4m3";
            case FLOAT8_E5M2 -> "e5m2";
        };
    }
}
