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

    /** The class of failure (serialized with the exception). */
    private final Result result;

    /**
     * An exception of kind {@code result}.
     *
     * @param result  the class of failure
     * @param message what went wrong and what to do
     */
    public JcclException(Result result, String message) {
        super(message);
        this.result = Objects.requireNonNull(result);
    }

    /**
     * An exception of kind {@code result} caused by {@code cause}.
     *
     * @param result  the class of failure
     * @param message what went wrong and what to do
     * @param cause   the underlying failure
     */
    public JcclException(Result result, String message, Throwable cause) {
        super(message, cause);
        this.result = Objects.requireNonNull(result);
    }

    /**
     * The class of failure.
     *
     * @return the result
     */
    public Result result() {
        return result;
    }

    @Override
    public String toString() {
        return "JcclException[" + result + "]: " + getMessage();
    }
}
