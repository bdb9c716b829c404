package io.jccl;

/**
 * Outcome classes of a failed call, mirroring {@code ncclResult_t} (same names and numbers), plus
 * {@link #ABORTED} for operations released by {@link Communicator#abort()}.
 */
public enum Result {
    /** No error (never thrown; kept for NCCL's numbering). */
    SUCCESS(0),
    /** A CUDA driver call failed; the message names the call and the CUDA error. */
    UNHANDLED_CUDA_ERROR(1),
    /** The operating system refused something: a socket, a file in /dev/shm, memory. */
    SYSTEM_ERROR(2),
    /** A bug in JCCL: please report it with the message. */
    INTERNAL_ERROR(3),
    /** An argument is wrong: a null or too small buffer, a rank out of range, a bad count. */
    INVALID_ARGUMENT(4),
    /** The calls are in a wrong order or mismatch across ranks, or the communicator is closed. */
    INVALID_USAGE(5),
    /** A peer failed or went away; the message names it. */
    REMOTE_ERROR(6),
    /** Work was submitted and is not finished yet (non-blocking use). */
    IN_PROGRESS(7),
    /** A wait passed its deadline; the message names what was awaited and from which ranks. */
    TIMEOUT(8),
    /** The communicator was aborted while the operation waited. */
    ABORTED(9);

    private final int code;

    Result(int code) {
        this.code = code;
    }

    /**
     * The numeric value NCCL uses for the same result ({@link #ABORTED} has no NCCL equivalent and uses 9).
     *
     * @return the value
     */
    public int code() {
        return code;
    }
}
