package io.jccl.internal.topology;

/**
 * Bandwidths (GB/s) and limits of NCCL's topology model. Values are those of NCCL's src/graph/topo.h as given in the
 * reference notes (§7.3); where the notes flag a value as taken from upstream [UP], it is used as such.
 *
 * <p>Constants only; mirrors NCCL's topo.h defines.
 */
public final class TopoConstants {
    private TopoConstants() {
    }

    /** Bandwidth of a path from a node to itself, and of links that are never a bottleneck. */
    public static final double LOC_BW = 5000.0;
    /** PCIe Gen3 x16, the default when a PCI link speed is unknown. */
    public static final double PCI_BW = 12.0;
    /** 100 Gb/s network. */
    public static final double NET_BW = 12.0;

    public static final double BDW_QPI_BW = 6.0;
    public static final double SKL_QPI_BW = 10.0;
    public static final double SRP_QPI_BW = 22.0;
    public static final double ERP_QPI_BW = 40.0;
    public static final double AMD_ZEN12_BW = 16.0;
    public static final double AMD_ZEN34_BW = 24.0;
    public static final double AMD_ZEN5_BW = 32.0;
    public static final double ZPI_BW = 6.0;
    public static final double YONGFENG_ZPI_BW = 9.0;
    public static final double P9_BW = 32.0;
    public static final double ARM_BW = 6.0;

    /** Most channels (CUDA blocks) a communicator has; a channel mask fits in a long. */
    public static final int MAXCHANNELS = 64;
    /** NCCL's cap on nodes of one type. */
    public static final int MAX_NODES = 576;
    /** NCCL's cap on links of one node. */
    public static final int MAX_LINKS = 576;
    /** Largest tree fan-out (children per node). */
    public static final int MAX_TREE_ARITY = 3;

    /**
     * Per-link NVLink bandwidth for a GPU of compute capability {@code sm} (SM60 18, SM70/80 20, SM86 12, SM90 20.6,
     * SM100 40.1).
     */
    public static double nvlinkBwGBps(int sm) {
        if (sm >= 100) {
            return 40.1;
        }
        if (sm >= 90) {
            return 20.6;
        }
        if (sm == 86) {
            return 12.0;
        }
        if (sm >= 80) {
            return 20.0;
        }
        if (sm >= 70) {
            return 20.0;
        }
        if (sm >= 60) {
            return 18.0;
        }
        return 20.0;
    }

    /** P2P through an Intel root complex costs 20% more bandwidth than it carries ({@code INTEL_P2P_OVERHEAD}). */
    public static double intelP2pOverhead(double bwGBps) {
        return bwGBps * 6.0 / 5.0;
    }

    /** NCCL's {@code SUB_ROUND}: subtract and round to a thousandth so repeated reservations do not drift. */
    public static double subRound(double a, double b) {
        return Math.round((a - b) * 1000.0) / 1000.0;
    }
}
