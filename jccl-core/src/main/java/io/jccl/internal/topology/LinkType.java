package io.jccl.internal.topology;

/**
 * Physical link kinds with NCCL's numeric ids; the ids leave gaps so that a link id equals the id of the path type a
 * single hop over that link has (NVL=1 is PATH_NVL, PCI=4 is PATH_PIX, SYS=9 is PATH_SYS, NET=10 is PATH_NET).
 *
 * <p>Immutable; mirrors NCCL's {@code LINK_*} defines (src/graph/topo.h).
 */
public enum LinkType {
    LOC(0, "LOC"),
    NVL(1, "NVL"),
    C2C(3, "C2C"),
    PCI(4, "PCI"),
    SYS(9, "SYS"),
    NET(10, "NET");

    private final int ncclId;
    private final String ncclName;

    LinkType(int ncclId, String ncclName) {
        this.ncclId = ncclId;
        this.ncclName = ncclName;
    }

    public int ncclId() {
        return ncclId;
    }

    public String ncclName() {
        return ncclName;
    }

    /** The path type of a one-hop path over this link, before the PXB/PHB/NVB upgrades of the path search. */
    public PathType asPathType() {
        return PathType.fromId(ncclId);
    }
}
