package io.jccl.internal.tuning;

/**
 * The hardware a hop crosses, for latency tables: NVLink, PCIe (inside a node) or the network.
 *
 * <p>Immutable; mirrors NCCL's {@code NCCL_HW_*}.
 */
enum HwKind {
    NVLINK,
    PCI,
    NET
}
