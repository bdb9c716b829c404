package io.jccl.internal.topology;

/**
 * x86 CPU vendors with NCCL's ids ({@code NCCL_TOPO_CPU_VENDOR_*}), recognised from the CPUID vendor string stored in
 * the XML {@code vendor} attribute.
 *
 * <p>Immutable; mirrors NCCL's kvDictCpuVendor (src/graph/topo.cc).
 */
public enum CpuVendor {
    UNKNOWN(0, ""),
    INTEL(1, "GenuineIntel"),
    AMD(2, "AuthenticAMD"),
    ZHAOXIN(3, "CentaurHauls"),
    MIXED(4, "Mixed");

    private final int ncclId;
    private final String cpuidString;

    CpuVendor(int ncclId, String cpuidString) {
        this.ncclId = ncclId;
        this.cpuidString = cpuidString;
    }

    public int ncclId() {
        return ncclId;
    }

    /** The CPUID vendor string ({@code GenuineIntel}, …). */
    public String cpuidString() {
        return cpuidString;
    }

    public static CpuVendor parse(String s) {
        if (s == null) {
            return UNKNOWN;
        }
        String v = s.trim();
        if (v.equals("GenuineIntel")) {
            return INTEL;
        }
        if (v.equals("AuthenticAMD") || v.equals("HygonGenuine")) {
            return AMD;
        }
        if (v.equals("CentaurHauls") || v.equals("Shanghai")) {
            return ZHAOXIN;
        }
        if (v.equalsIgnoreCase("mixed")) {
            return MIXED;
        }
        return UNKNOWN;
    }
}
