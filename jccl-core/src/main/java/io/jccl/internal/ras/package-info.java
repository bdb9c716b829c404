/**
 * Failure detection and status queries (NCCL's RAS subsystem, per communicator).
 *
 * <p>Every communicator starts a {@link io.jccl.internal.ras.PeerMonitor} when its init completes: a virtual thread
 * that sends a heartbeat to each watched peer every {@code JCCL_HEARTBEAT_MS} (1 s) over the bootstrap connections.
 * A heartbeat carries the sender's {@link io.jccl.internal.ras.OpStatus} (last operation issued and completed) and,
 * when an operation is in flight, the description of the wait it sleeps in (which names the peer). A peer is lost
 * when its bootstrap connection ends without a goodbye (killed, crashed), when it says goodbye after a failure,
 * when it is silent for {@code JCCL_HEARTBEAT_TIMEOUT_MS} (20 s: stopped, hung, unreachable), when its process on
 * this host is gone, or when another rank sends a lost-rank notice. Losing a peer fails the communicator with a
 * {@code REMOTE_ERROR} (or {@code TIMEOUT} for silence) naming the rank, its pid and host, and the operation
 * sequence number this rank was in; that diagnosis replaces whatever symptom a data connection reported first.
 * {@code Communicator.lostRanks()} lists the lost ranks; survivors pass it to {@code shrink}.
 *
 * <p>The process holding rank 0 of a communicator answers status queries on {@code NCCL_RAS_ADDR} (default
 * 127.0.0.1:28028; {@code ./jccl run} picks a free port and prints it): {@code ./jccl ras --port P} prints, per
 * communicator and rank, the state (alive, silent, LOST, closing), the last completed operation, the operation in
 * flight and what it waits for, and which ranks have not reached a stuck operation. {@code NCCL_RAS_ENABLE=0} turns
 * the port off.
 *
 * <p>Nothing here runs on the data path: the calling thread writes two fields per operation, and a wait writes one
 * reference when it stops spinning and goes to sleep.
 */
package io.jccl.internal.ras;
