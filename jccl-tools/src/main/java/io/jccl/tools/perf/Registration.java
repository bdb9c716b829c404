package io.jccl.tools.perf;

/**
 * nccl-tests' {@code -R} (local_register): how the perf buffers are registered with the library measured. A value
 * parsed once by {@link PerfMain}; read by every rank's backend. Mirrors nccl-tests' {@code local_register}
 * (0 none, 1 {@code ncclCommRegister}, 2 {@code ncclCommWindowRegister} with {@code NCCL_WIN_COLL_SYMMETRIC}).
 */
public enum Registration {
    /** {@code -R 0}: plain buffers. */
    NONE(0, "none"),
    /** {@code -R 1}: user-buffer registration (NCCL: ncclCommRegister; host: Communicator.allocate). */
    BUFFERS(1, "user buffers"),
    /** {@code -R 2}: symmetric windows (NCCL 2.27+: ncclMemAlloc + ncclCommWindowRegister; JCCL: GpuWindow). */
    WINDOWS(2, "symmetric windows");

    private final int code;
    private final String description;

    Registration(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** The number nccl-tests takes after {@code -R}. */
    public int code() {
        return code;
    }

    /** What it means, for the header. */
    public String description() {
        return description;
    }

    /** {@code 0}, {@code 1} or {@code 2}; anything else is refused with the three choices. */
    public static Registration parse(String value) {
        String v = value == null ? "" : value.trim();
        for (Registration r : values()) {
            if (v.equals(Integer.toString(r.code))) {
                return r;
            }
        }
        throw new IllegalArgumentException("-R (buffer registration) must be 0 (none), 1 (user buffers: "
                + "ncclCommRegister) or 2 (symmetric windows: ncclCommWindowRegister), got '" + value + "'");
    }
}
