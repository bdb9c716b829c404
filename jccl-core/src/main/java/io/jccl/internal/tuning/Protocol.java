package io.jccl.internal.tuning;

/**
 * Wire protocols with NCCL's ids and names: LL (8 bytes of data + 8-byte flag per 16-byte line, lowest latency, half
 * the bandwidth), LL128 (flag per 128-byte line, 120/128 of the bandwidth; needs hardware that orders 128-byte stores)
 * and Simple (large chunks with head/tail credits, full bandwidth, highest latency).
 *
 * <p>Immutable; mirrors NCCL's {@code NCCL_PROTO_*}.
 */
public enum Protocol {
    LL("LL"),
    LL128("LL128"),
    SIMPLE("Simple");

    public static final int COUNT = values().length;
    private static final Protocol[] BY_ORDINAL = values();

    private final String ncclName;

    Protocol(String ncclName) {
        this.ncclName = ncclName;
    }

    /** The constant with this ordinal (no array copy, unlike {@code values()}). */
    public static Protocol of(int ordinal) {
        return BY_ORDINAL[ordinal];
    }

    public String ncclName() {
        return ncclName;
    }
}
