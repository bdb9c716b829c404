package io.jccl.cuda.internal.comm;

import io.jccl.internal.transport.PeerExchange;

/**
 * Where one GPU rank's collective memory lives, as suspend and resume see it: an {@code initAll} clique's (peers by
 * address) or this process's {@link ProcessWiring} (peers through CUDA IPC). Both steps are collective over the
 * communicator's ranks, through {@code exchange} (the host communicator's bootstrap, which stays up while the host
 * communicator is suspended).
 *
 * <p>Thread: the communicator's owner, with the GPU idle (the caller synchronised it and every rank agreed).
 * Mirrors: the two passes of NCCL's ncclCommMemSuspend (peer imports, then local memory) and the re-create,
 * re-exchange and re-import of ncclCommMemResume.
 */
public interface RankMemory {
    /**
     * Null when this rank's memory can be released and taken back, else why not (a communicator across hosts, whose
     * network FIFOs the proxy thread of the host communicator moves).
     */
    String suspendRefusal();

    /**
     * Unmaps the peers' areas this rank imported, waits for every rank to have done so (a barrier), then frees this
     * rank's own area.
     */
    void release(PeerExchange exchange);

    /**
     * Allocates this rank's area again (zeroed counters: every rank starts over together), exchanges the addresses or
     * IPC handles, maps the peers' areas, and returns the kernels' new view of every rank's area.
     */
    PeerAreas restore(PeerExchange exchange);
}
