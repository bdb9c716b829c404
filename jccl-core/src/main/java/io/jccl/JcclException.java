package io.jccl;

import java.io.Serial;
import java.util.Objects;

/**
 * The one exception type JCCL throws. Its {@link #result()} says which kind of failure it is (mirroring
 * {@code ncclResult_t}); its message names the communicator, the rank, the peer and the operation where they apply.
 */
public class JcclException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final Result result;

    public JcclException(Result result, String message) {
        super(message);
        this.result = Objects.requireNonNull(result);
    }

    public JcclException(Result result, String message, Throwable cause) {
        super(message, cause);
        this.result = Objects.requireNonNull(result);
    }

    /** The class of failure. */
    public Result result() {
        return result;
    }

    @Override
    public String toString() {
        return "JcclException[" + result + "]: " + getMessage();
    }
}
