package io.jccl.internal.topology;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.Locale;

/**
 * Path classes, ordered best to worst: a smaller ordinal is a better (closer) path, and every comparison in the path
 * computation and the search relies on that order. Ordinals equal NCCL's {@code PATH_*} values.
 *
 * <ul>
 *   <li>LOC: the node itself. NVL: NVLink (possibly through NVSwitches). NVB: NVLink through an intermediate GPU.</li>
 *   <li>C2C: chip-to-chip link to the CPU. PIX: at most one PCIe bridge. PXB: several PCIe bridges, no host
 * bridge.</li>
 *   <li>P2C: GPU → C2C → CPU → PCIe → NIC. PXN: GPU → NIC through an intermediate, NVLink-connected GPU.</li>
 *   <li>PHB: through a PCIe host bridge (CPU). SYS: across the inter-CPU (NUMA) link. NET: across the network.</li>
 *   <li>DIS: disconnected.</li>
 * </ul>
 *
 * <p>Immutable; mirrors NCCL's {@code PATH_*} defines and {@code topoPathTypeStr} (src/graph/topo.h, topo.cc).
 */
public enum PathType {
    LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS, NET, DIS;

    private static final PathType[] BY_ID = values();

    /** Old numeric NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL values 0..5 mapped to path types. */
    private static final PathType[] OLD_LEVELS = {LOC, PIX, PXB, PHB, SYS, SYS};

    /** NCCL's numeric id of this path type. */
    public int ncclId() {
        return ordinal();
    }

    /** NCCL's string ({@code "NVL"}, {@code "PHB"}, …). */
    public String ncclName() {
        return name();
    }

    public boolean betterThan(PathType other) {
        return ordinal() < other.ordinal();
    }

    public boolean atMost(PathType other) {
        return ordinal() <= other.ordinal();
    }

    public static PathType worse(PathType a, PathType b) {
        return a.ordinal() >= b.ordinal() ? a : b;
    }

    public static PathType fromId(int id) {
        if (id < 0 || id >= BY_ID.length) {
            throw new JcclException(Result.INTERNAL_ERROR, "path type id " + id + " out of range 0.."
                    + (BY_ID.length - 1));
        }
        return BY_ID[id];
    }

    /** The next worse path type (DIS stays DIS). */
    public PathType next() {
        return this == DIS ? DIS : BY_ID[ordinal() + 1];
    }

    /**
     * Parses a level as NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL accept it: a path name from LOC to SYS (case-insensitive),
     * or
     * an old-style number 0..5 (larger numbers mean SYS).
     *
     * @param variable the variable name, for the error message
     */
    public static PathType parseLevel(String variable, String value) {
        String v = value.trim();
        for (PathType t : BY_ID) {
            if (t.ordinal() <= SYS.ordinal() && t.name().equalsIgnoreCase(v)) {
                return t;
            }
        }
        if (!v.isEmpty() && Character.isDigit(v.charAt(0))) {
            try {
                int old = Integer.parseInt(v);
                return OLD_LEVELS[Math.min(old, OLD_LEVELS.length - 1)];
            } catch (NumberFormatException e) {
                // fall through to the error below
            }
        }
        throw new JcclException(Result.INVALID_ARGUMENT, variable + "=" + value
                + " is not a path level; use one of LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS or a number 0..5");
    }

    /** Parses a path type name as printed by NCCL (graph dumps), case-insensitive. */
    public static PathType parseName(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, "'" + value + "' is not a path type name (LOC … DIS)");
        }
    }
}
