package io.jccl.internal.topology;

import java.util.Locale;

/**
 * Number and id formatting shared by dumps and reports, matching NCCL's log style ({@code GPU/0-60}, {@code 370.8}).
 *
 * <p>Stateless.
 */
public final class TopoFormat {
    private TopoFormat() {
    }

    /**
     * Bandwidth with one decimal, as NCCL prints link and path bandwidths with C's {@code %.1f}: the exact binary
     * value rounded half-to-even (1.25 prints as 1.2, like NCCL's {@code NET[1.2]}).
     */
    public static String bw(double gbps) {
        if (!Double.isFinite(gbps)) {
            return Double.toString(gbps);
        }
        return new java.math.BigDecimal(gbps).setScale(1, java.math.RoundingMode.HALF_EVEN).toPlainString();
    }

    /** A float as NCCL's XML writer prints it ({@code %g}-like: no trailing zeros). */
    public static String num(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        String s = String.format(Locale.ROOT, "%.6f", v);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    /** {@code type/systemId-localId} in hex, as NCCL labels nodes. */
    public static String nodeLabel(NodeType type, long id) {
        long systemId = id >>> 56;
        long localId = id & 0x00ffffffffffffffL;
        return type.ncclName() + "/" + Long.toHexString(systemId) + "-" + Long.toHexString(localId);
    }
}
