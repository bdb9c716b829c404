package io.jccl.tools.run;

import java.util.List;

/**
 * How a {@link LocalJob} ended.
 *
 * @param exitCode       what the launcher itself should exit with: 0 when every rank exited 0, the failed rank's
 *                       code (1 if that code was 0 or out of range) when one failed, 124 on timeout
 * @param failedRank     the first rank seen to fail, or -1
 * @param failedExitCode that rank's exit code, or 0
 * @param timedOut       true when the job ran past its timeout and was stopped
 * @param rankExitCodes  each rank's exit code, in rank order (ranks stopped by the launcher show the signal's code)
 */
public record LaunchResult(int exitCode, int failedRank, int failedExitCode, boolean timedOut,
                           List<Integer> rankExitCodes) {

    /** Exit status used when the job's overall timeout expires (as coreutils' {@code timeout}). */
    public static final int TIMEOUT_EXIT_CODE = 124;

    public LaunchResult {
        rankExitCodes = List.copyOf(rankExitCodes);
    }

    /** True when every rank exited with status 0. */
    public boolean succeeded() {
        return exitCode == 0;
    }
}
