package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.launch.Placement;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads rank, size, local rank and local size from the variables the common launchers export (torchrun and
 * {@code ./jccl run}, Open MPI, MPICH's Hydra, Slurm), first match wins.
 *
 * <p>Owned by: the calling thread (stateless). Mirrors: what torch.distributed's env:// and MPI libraries read.
 */
public final class EnvPlacement {
    /** One launcher's variable names; a null local name means the launcher exports none. */
    private record Style(String rank, String size, String localRank, String localSize, String launcher) {
    }

    private static final List<Style> STYLES = List.of(
            new Style("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "torchrun"),
            new Style("JCCL_RANK", "JCCL_WORLD_SIZE", "JCCL_LOCAL_RANK", "JCCL_LOCAL_SIZE", "jccl"),
            new Style("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
                    "OMPI_COMM_WORLD_LOCAL_SIZE", "mpirun (Open MPI)"),
            new Style("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "PMI (MPICH)"),
            new Style("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", null, "srun (Slurm)"));

    private EnvPlacement() {
    }

    /** The first launcher style whose rank and size are both set, or empty. */
    public static Optional<Placement> find(Map<String, String> env) {
        for (Style s : STYLES) {
            String r = env.get(s.rank());
            String n = env.get(s.size());
            if (r == null || n == null) {
                continue;
            }
            int rank = parseInt(r, s.rank());
            int size = parseInt(n, s.size());
            if (rank < 0 || rank >= size) {
                throw new JcclException(Result.INVALID_ARGUMENT, s.rank() + "=" + r + " is not in [0, " + s.size()
                        + "=" + n + ")");
            }
            int localRank = optionalInt(env, s.localRank());
            int localSize = s.localSize() != null ? optionalInt(env, s.localSize())
                    : SlurmHosts.localTasks(env.get("SLURM_TASKS_PER_NODE"), optionalInt(env, "SLURM_NODEID"));
            if (localSize > size || (localSize > 0 && localRank >= localSize)) {
                localRank = -1;
                localSize = -1;
            }
            return Optional.of(new Placement(rank, size, localRank, localSize, s.launcher()));
        }
        return Optional.empty();
    }

    /** As {@link #find}, failing with the names each launcher sets when none is there. */
    public static Placement require(Map<String, String> env, String launcher) {
        return find(env).orElseThrow(() -> new JcclException(Result.INVALID_ARGUMENT, launcher
                + ": no rank and size in the environment: set RANK and WORLD_SIZE (torchrun), or start with mpirun, "
                + "srun or ./jccl run"));
    }

    static int optionalInt(Map<String, String> env, String name) {
        String v = name == null ? null : env.get(name);
        return v == null || v.isBlank() ? -1 : parseInt(v, name);
    }

    static int parseInt(String v, String what) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, what + "='" + v + "' is not a number");
        }
    }
}
