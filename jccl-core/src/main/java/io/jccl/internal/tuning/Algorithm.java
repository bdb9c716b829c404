package io.jccl.internal.tuning;

/**
 * Collective algorithms with NCCL's ids and names ({@code NCCL_ALGO_*}, the names NCCL_ALGO accepts). JCCL models Ring
 * and Tree; the others are listed so that tables, NCCL_ALGO strings and explanations line up with NCCL, and are
 * reported as unavailable.
 *
 * <p>Immutable; mirrors NCCL's algorithm ids (src/include/device.h, algorithm registry).
 */
public enum Algorithm {
    TREE("Tree"),
    RING("Ring"),
    COLLNET_DIRECT("CollnetDirect"),
    COLLNET_CHAIN("CollnetChain"),
    NVLS("NVLS"),
    NVLS_TREE("NVLSTree"),
    PAT("PAT");

    public static final int COUNT = values().length;
    private static final Algorithm[] BY_ORDINAL = values();

    private final String ncclName;

    Algorithm(String ncclName) {
        this.ncclName = ncclName;
    }

    /** The constant with this ordinal (no array copy, unlike {@code values()}). */
    public static Algorithm of(int ordinal) {
        return BY_ORDINAL[ordinal];
    }

    public String ncclName() {
        return ncclName;
    }
}
