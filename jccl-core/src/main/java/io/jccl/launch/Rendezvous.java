package io.jccl.launch;

import io.jccl.UniqueId;

import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A launcher's or engine's way into a job (a service provider, found with {@link java.util.ServiceLoader} as
 * Lightning finds its cluster environments): it recognises the environment it runs in, says where this process sits,
 * and gives every process of the job the same {@link UniqueId}. JCCL ships one for {@code ./jccl run} and plain
 * {@code MASTER_ADDR}/{@code MASTER_PORT} or {@code JCCL_COMM_ID}, torchrun, Open MPI and Slurm (PMIx, else
 * {@code SLURM_NODELIST}) and Kubernetes Indexed Jobs; {@code JCCL_RENDEZVOUS=<name>} picks one by name. See
 * docs/launchers.md.
 *
 * <p>Implementations must be thread-safe and cheap to construct; {@link #detect} must not block.
 */
public interface Rendezvous {
    /**
     * A short name, as {@code JCCL_RENDEZVOUS} takes it.
     *
     * @return the name
     */
    String name();

    /**
     * Which of several detected rendezvous wins: higher first. The built-in ones use 0 to 100; an address the user
     * set ({@code JCCL_COMM_ID}) is 100.
     *
     * @return the priority
     */
    default int priority() {
        return 50;
    }

    /**
     * Whether this process was started by this launcher.
     *
     * @param env the process environment
     * @return true when this rendezvous can place the process
     */
    boolean detect(Map<String, String> env);

    /**
     * Where this process sits.
     *
     * @param env the process environment
     * @return the placement
     * @throws io.jccl.JcclException when the environment is incomplete or inconsistent, naming what is missing
     */
    Placement placement(Map<String, String> env);

    /**
     * Gives every process the same communicator id. The process of rank 0 makes it (with {@code newId}, which starts
     * a bootstrap root in this process, or in a way of its own) and publishes it; the others wait for it.
     *
     * @param self    this process's placement, from {@link #placement}
     * @param newId   makes a fresh id whose bootstrap root runs in this process; call it on rank 0 only
     * @param timeout how long the others may wait for rank 0
     * @return the id, the same on every process
     * @throws io.jccl.JcclException with {@link io.jccl.Result#TIMEOUT} when rank 0's id does not come in time
     */
    UniqueId shareId(Placement self, Supplier<UniqueId> newId, Duration timeout);
}
