/**
 * Launchers and engines: how a process finds its rank, its host's ranks and its communicator's id under
 * {@code ./jccl run}, torchrun, mpirun, srun, Kubernetes or a service provider of its own ({@link
 * io.jccl.launch.Rendezvous}).
 */
package io.jccl.launch;
