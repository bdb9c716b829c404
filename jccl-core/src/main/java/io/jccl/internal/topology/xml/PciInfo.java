package io.jccl.internal.topology.xml;

import io.jccl.internal.topology.NodeType;

import java.util.Locale;

/**
 * PCI facts NCCL's XML uses: bus-id strings to 64-bit ids, class codes to node types, and the bandwidth of a link from
 * its {@code link_speed} / {@code link_width} attributes ({@code width × per-lane speed / 80} GB/s, the per-lane speed
 * in units of 100 Mb/s: 2.5 GT/s → 15, 5 → 30, 8 → 60, 16 → 120, 32 → 240, 64 → 480; unknown → 60; width 0 → 16).
 *
 * <p>Stateless; mirrors kvDictPciClass, kvDictPciGen and busIdToInt64 of NCCL's src/graph/topo.cc and xml.h.
 */
public final class PciInfo {
    /** PCI class of a bridge / switch port. */
    public static final String CLASS_BRIDGE = "0x060400";
    /** PCI class NCCL uses for NVSwitches. */
    public static final String CLASS_NVSWITCH = "0x068000";
    /** PCI class NCCL uses for a CPU reached over NVLink (POWER). */
    public static final String CLASS_CPU = "0x068001";

    private PciInfo() {
    }

    /** The node type a PCI class code stands for (prefix match, as NCCL's dictionary): bridges and unknowns are PCI. */
    public static NodeType typeOfClass(String pciClass) {
        if (pciClass == null) {
            return NodeType.PCI;
        }
        String c = pciClass.trim().toLowerCase(Locale.ROOT);
        if (c.startsWith(CLASS_BRIDGE)) {
            return NodeType.PCI;
        }
        if (c.startsWith(CLASS_NVSWITCH)) {
            return NodeType.NVS;
        }
        if (c.startsWith(CLASS_CPU)) {
            return NodeType.CPU;
        }
        if (c.startsWith("0x03")) {
            return NodeType.GPU;
        }
        if (c.startsWith("0x02")) {
            return NodeType.NIC;
        }
        return NodeType.PCI;
    }

    /** Per-lane speed in units of 100 Mb/s for a sysfs {@code link_speed} string; 60 (Gen3) when unknown. */
    public static int laneSpeed(String linkSpeed) {
        if (linkSpeed == null) {
            return 60;
        }
        String s = linkSpeed.trim();
        if (s.startsWith("2.5 GT/s")) {
            return 15;
        }
        if (s.startsWith("5 GT/s") || s.startsWith("5.0 GT/s")) {
            return 30;
        }
        if (s.startsWith("8 GT/s") || s.startsWith("8.0 GT/s")) {
            return 60;
        }
        if (s.startsWith("16 GT/s") || s.startsWith("16.0 GT/s")) {
            return 120;
        }
        if (s.startsWith("32 GT/s") || s.startsWith("32.0 GT/s")) {
            return 240;
        }
        if (s.startsWith("64 GT/s") || s.startsWith("64.0 GT/s")) {
            return 480;
        }
        return 60;
    }

    /** Link bandwidth in GB/s: {@code width * laneSpeed / 80}, a zero or missing width counting as 16 lanes. */
    public static double linkBwGBps(String linkSpeed, int width) {
        int w = width <= 0 ? 16 : width;
        return w * laneSpeed(linkSpeed) / 80.0;
    }

    /**
     * A bus id ({@code 0000:17:00.0}) as a number: its hex digits concatenated ({@code 0x170000}), as NCCL's
     * busIdToInt64 does; non-hex characters are skipped, at most 17 characters are read.
     */
    public static long busIdToLong(String busId) {
        long v = 0;
        int n = Math.min(busId.length(), 17);
        for (int i = 0; i < n; i++) {
            int d = Character.digit(busId.charAt(i), 16);
            if (d >= 0) {
                v = (v << 4) | d;
            }
        }
        return v;
    }

    /** The canonical bus id string of a number ({@code 0x170000} → {@code 0000:17:00.0}). */
    public static String longToBusId(long id) {
        return String.format(Locale.ROOT, "%04x:%02x:%02x.%01x", (id >> 20) & 0xffff, (id >> 12) & 0xff,
                (id >> 4) & 0xff, id & 0xf);
    }

    /** Normalises a bus id to lower case {@code dddd:bb:dd.f} (adds the domain when missing). */
    public static String normalize(String busId) {
        String b = busId.trim().toLowerCase(Locale.ROOT);
        if (b.matches("[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]")) {
            b = "0000:" + b;
        }
        if (b.matches("[0-9a-f]{8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]")) {
            b = b.substring(4);
        }
        return b;
    }

    /** True for a {@code dddd:bb:dd.f} PCI address (a sysfs path component that is a PCI device). */
    public static boolean isBdf(String s) {
        return s.matches("[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");
    }
}
