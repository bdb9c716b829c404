package io.jccl.launch;

/**
 * Where this process sits in a job, as its launcher or engine describes it: known before any communicator exists, so
 * a process can pick its GPU with {@link #localRank()} first.
 *
 * @param rank      this process's rank, in [0, size)
 * @param size      the number of processes of the job
 * @param localRank this process's index among the job's processes on its host, or -1 when the launcher does not say
 * @param localSize the number of the job's processes on this host, or -1 when the launcher does not say
 * @param launcher  the name of the {@link Rendezvous} that found it (for logs and errors)
 */
public record Placement(int rank, int size, int localRank, int localSize, String launcher) {
    /** Checks that the numbers are consistent. */
    public Placement {
        if (size < 1 || rank < 0 || rank >= size) {
            throw new IllegalArgumentException(launcher + ": rank " + rank + " is not in [0, " + size + ")");
        }
        if (localRank < -1 || localSize < -1 || localSize > size || (localSize > 0 && localRank >= localSize)) {
            throw new IllegalArgumentException(launcher + ": local rank " + localRank + " of local size "
                    + localSize + " does not fit " + size + " ranks");
        }
    }

    /**
     * This process's index on its host, or {@code otherwise} when the launcher does not say.
     *
     * @param otherwise the value to use when the local rank is unknown
     * @return the local rank, or {@code otherwise}
     */
    public int localRankOr(int otherwise) {
        return localRank >= 0 ? localRank : otherwise;
    }
}
