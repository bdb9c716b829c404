package io.jccl.internal.topology;

/**
 * CPU generations that set the bandwidth of the link between two NUMA domains of one host (NCCL's inter-CPU
 * bandwidth table), chosen from vendor, CPUID family and model as NCCL does.
 *
 * <p>Immutable; mirrors NCCL's {@code NCCL_TOPO_CPU_MODEL_*} and {@code ncclTopoGetInterCpuBw} (src/graph/topo.cc).
 */
public enum CpuModel {
    /** Intel Broadwell and older: QPI. */
    INTEL_BDW(TopoConstants.BDW_QPI_BW),
    /** Intel Skylake .. Ice Lake: UPI (family 6, model >= 0x55). */
    INTEL_SKL(TopoConstants.SKL_QPI_BW),
    /** Intel Sapphire Rapids (family 6, model >= 0x8F). */
    INTEL_SRP(TopoConstants.SRP_QPI_BW),
    /** Intel Emerald Rapids and newer (family 6, model >= 0xCF). */
    INTEL_ERP(TopoConstants.ERP_QPI_BW),
    /** AMD Zen 1/2 (family 0x17). */
    AMD_ZEN12(TopoConstants.AMD_ZEN12_BW),
    /** AMD Zen 3/4 (family 0x19). */
    AMD_ZEN34(TopoConstants.AMD_ZEN34_BW),
    /** AMD Zen 5 (family 0x1A). */
    AMD_ZEN5(TopoConstants.AMD_ZEN5_BW),
    /** Zhaoxin (ZPI). */
    ZHAOXIN(TopoConstants.ZPI_BW),
    /** Zhaoxin Yongfeng (family 7, model 0x5B). */
    ZHAOXIN_YONGFENG(TopoConstants.YONGFENG_ZPI_BW),
    /** IBM POWER9 (X-bus). */
    POWER9(TopoConstants.P9_BW),
    /** ARM servers. */
    ARM(TopoConstants.ARM_BW),
    /** Unknown CPUs: the link is not a bottleneck (NCCL's default). */
    UNKNOWN(TopoConstants.LOC_BW);

    private final double interCpuBwGBps;

    CpuModel(double interCpuBwGBps) {
        this.interCpuBwGBps = interCpuBwGBps;
    }

    /** Bandwidth of the SYS link from a CPU of this model to another CPU of the same host. */
    public double interCpuBwGBps() {
        return interCpuBwGBps;
    }

    /** NCCL's classification from architecture, vendor and the CPUID family/model numbers. */
    public static CpuModel classify(CpuArch arch, CpuVendor vendor, int familyId, int modelId) {
        if (arch == CpuArch.POWER) {
            return POWER9;
        }
        if (arch == CpuArch.ARM) {
            return ARM;
        }
        if (arch != CpuArch.X86) {
            return UNKNOWN;
        }
        return switch (vendor) {
            case INTEL -> familyId == 6 && modelId >= 0xCF ? INTEL_ERP
                    : familyId == 6 && modelId >= 0x8F ? INTEL_SRP
                    : familyId == 6 && modelId >= 0x55 ? INTEL_SKL : INTEL_BDW;
            case AMD -> familyId >= 0x1A ? AMD_ZEN5 : familyId == 0x19 ? AMD_ZEN34 : AMD_ZEN12;
            case ZHAOXIN -> familyId == 7 && modelId == 0x5B ? ZHAOXIN_YONGFENG : ZHAOXIN;
            default -> UNKNOWN;
        };
    }
}
