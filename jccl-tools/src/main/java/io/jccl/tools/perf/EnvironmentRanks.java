package io.jccl.tools.perf;

import java.util.Map;
import java.util.Optional;

/**
 * Tells whether a launcher (jccl run, torchrun, mpirun, srun) started this process as one rank of a job, and which
 * local index its device line should show. Stateless; the checks {@code Communicator.fromEnvironment()} relies on.
 */
public final class EnvironmentRanks {
    private EnvironmentRanks() {
    }

    /** The variable(s) that name a rank, or empty when this process was started on its own. */
    public static Optional<String> detect(Map<String, String> env) {
        if (env.containsKey("JCCL_COMM_ID")) {
            return Optional.of("JCCL_COMM_ID");
        }
        if (env.containsKey("NCCL_COMM_ID")) {
            return Optional.of("NCCL_COMM_ID");
        }
        if (env.containsKey("RANK") && env.containsKey("WORLD_SIZE")) {
            return Optional.of("RANK/WORLD_SIZE");
        }
        if (env.containsKey("OMPI_COMM_WORLD_RANK") && env.containsKey("OMPI_COMM_WORLD_SIZE")) {
            return Optional.of("OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE");
        }
        if (env.containsKey("SLURM_PROCID") && env.containsKey("SLURM_NTASKS")) {
            return Optional.of("SLURM_PROCID/SLURM_NTASKS");
        }
        return Optional.empty();
    }

    /** This process's index among the ranks of its host (LOCAL_RANK, Open MPI's or Slurm's), else 0. */
    public static int localIndex(Map<String, String> env) {
        for (String name : new String[]{"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"}) {
            String v = env.get(name);
            if (v != null) {
                try {
                    return Integer.parseInt(v.trim());
                } catch (NumberFormatException ignored) {
                    // a malformed value: try the next source
                }
            }
        }
        return 0;
    }
}
