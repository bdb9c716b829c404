package io.jccl.internal.debug;

/** NCCL's debug subsystems ({@code NCCL_DEBUG_SUBSYS} names and bits). */
public enum Subsys {
    INIT(0x1), COLL(0x2), P2P(0x4), SHM(0x8), NET(0x10), GRAPH(0x20), TUNING(0x40), ENV(0x80), ALLOC(0x100),
    CALL(0x200), PROXY(0x400), NVLS(0x800), BOOTSTRAP(0x1000), REG(0x2000), PROFILE(0x4000), RAS(0x8000);

    private final int bit;

    Subsys(int bit) {
        this.bit = bit;
    }

    public int bit() {
        return bit;
    }
}
