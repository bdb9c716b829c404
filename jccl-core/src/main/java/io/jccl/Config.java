package io.jccl;

import java.time.Duration;
import java.util.Objects;

/**
 * Options of a communicator (NCCL's {@code ncclConfig_t}). Unset values ({@code null} or 0) take the environment's
 * value (NCCL_* / JCCL_* variables, or Java system properties of the same name) or JCCL's default.
 *
 * @param timeout     how long any single wait (for a peer's data, credits, a bootstrap message) may last before the
 *                    operation fails with {@link Result#TIMEOUT}; {@code null}: {@code JCCL_TIMEOUT_MS} or 120 s
 * @param minChannels at least this many channels (parallel rings); 0: {@code NCCL_MIN_NCHANNELS} or automatic
 * @param maxChannels at most this many channels; 0: {@code NCCL_MAX_NCHANNELS} or automatic
 * @param commName    a name shown in logs and errors; {@code null}: none
 */
public record Config(Duration timeout, int minChannels, int maxChannels, String commName) {
    private static final Config DEFAULTS = new Config(null, 0, 0, null);

    /**
     * Checks the values.
     *
     * @throws JcclException with {@link Result#INVALID_ARGUMENT} for a non-positive timeout or a bad channel range
     */
    public Config {
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new JcclException(Result.INVALID_ARGUMENT, "timeout must be positive, got " + timeout);
        }
        if (minChannels < 0 || maxChannels < 0 || (maxChannels > 0 && minChannels > maxChannels)) {
            throw new JcclException(Result.INVALID_ARGUMENT,
                    "bad channel range min=" + minChannels + " max=" + maxChannels);
        }
    }

    /**
     * Everything unset: environment or defaults.
     *
     * @return the default config
     */
    public static Config defaults() {
        return DEFAULTS;
    }

    /**
     * This config with another timeout.
     *
     * @param t the timeout of any single wait
     * @return the new config
     */
    public Config withTimeout(Duration t) {
        return new Config(Objects.requireNonNull(t), minChannels, maxChannels, commName);
    }

    /**
     * This config with another channel range.
     *
     * @param min at least this many channels (0: automatic)
     * @param max at most this many channels (0: automatic)
     * @return the new config
     */
    public Config withChannels(int min, int max) {
        return new Config(timeout, min, max, commName);
    }

    /**
     * This config with a name for logs and errors.
     *
     * @param name the name, or {@code null}
     * @return the new config
     */
    public Config withName(String name) {
        return new Config(timeout, minChannels, maxChannels, name);
    }
}
