package io.jccl.internal.topology;

import java.util.Locale;

/**
 * CPU architectures with NCCL's ids ({@code NCCL_TOPO_CPU_ARCH_*}); the XML attribute {@code arch} names them
 * ({@code x86_64}, {@code arm64}/{@code aarch64}, {@code ppc64}).
 *
 * <p>Immutable; mirrors NCCL's kvDictCpuArch (src/graph/topo.cc).
 */
public enum CpuArch {
    UNKNOWN(0, "unknown"),
    X86(1, "x86_64"),
    POWER(2, "ppc64"),
    ARM(3, "arm64"),
    MIXED(4, "mixed");

    private final int ncclId;
    private final String xmlName;

    CpuArch(int ncclId, String xmlName) {
        this.ncclId = ncclId;
        this.xmlName = xmlName;
    }

    public int ncclId() {
        return ncclId;
    }

    /** The value written to the XML {@code arch} attribute. */
    public String xmlName() {
        return xmlName;
    }

    /** Maps an XML {@code arch} attribute or a Java {@code os.arch} value; unknown strings give UNKNOWN. */
    public static CpuArch parse(String s) {
        if (s == null) {
            return UNKNOWN;
        }
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "x86_64", "amd64", "x86-64" -> X86;
            case "arm64", "aarch64" -> ARM;
            case "ppc64", "ppc64le" -> POWER;
            case "mixed" -> MIXED;
            default -> UNKNOWN;
        };
    }
}
