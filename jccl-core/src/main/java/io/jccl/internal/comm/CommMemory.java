package io.jccl.internal.comm;

import io.jccl.MemoryStats;
import io.jccl.internal.algorithm.Scratch;
import io.jccl.internal.base.CountedArena;
import io.jccl.internal.base.MemoryLedger;
import io.jccl.internal.base.SuspendableArena;
import io.jccl.internal.transport.Connections;
import io.jccl.internal.transport.PeerExchange;
import io.jccl.internal.transport.Transport;
import io.jccl.internal.transport.shm.ShmPeerArea;

import java.util.List;

/**
 * The memory of one rank of a communicator: its ledger ({@link #stats}), the persistent arena that lives until
 * teardown (control words, the buffers of {@code allocate()}, uncounted), and what a suspend gives back and a resume
 * takes again, all in one {@link SuspendableArena}: the data connectors (shared-memory FIFO files and the mappings of
 * the peers', network FIFOs and their connections), the shared area of the one-shot and two-shot allReduce, and the
 * scratch buffer. Releasing stops the network connectors on every rank before any connection closes, so no proxy
 * takes a peer's close for a failure; taking back maps the shared areas again and reconnects the rings as init did
 * (other connectors reconnect when work first needs them, as they did the first time).
 *
 * <p>Owned by: the launching thread (suspend and resume run on it while the channel threads are idle); stats from any
 * thread. Mirrors: NCCL's ncclMemManager of one communicator (its entries, released on ncclCommSuspend and made
 * again on ncclCommResume).
 */
final class CommMemory {
    private final MemoryLedger ledger;
    private final CountedArena persistent;
    private final SuspendableArena suspendable;
    /** The small buffers of the GPU connectors across hosts, which the GPU communicator releases itself. */
    private final SuspendableArena gpuNet;
    private final Scratch scratch;
    private Connections connections;
    private List<Transport> transports = List.of();
    private List<Connections.Need> ringNeeds = List.of();
    private ShmPeerArea area;

    CommMemory() {
        this.ledger = new MemoryLedger();
        this.persistent = new CountedArena(ledger);
        this.suspendable = new SuspendableArena(ledger);
        this.gpuNet = new SuspendableArena(ledger);
        this.scratch = new Scratch(suspendable::arena);
    }

    /** Where suspendable memory is allocated now (transports and the shared area ask it at each setup). */
    java.lang.foreign.Arena suspendableArena() {
        return suspendable.arena();
    }

    /** The memory of the GPU connectors across hosts (GpuNetConnections releases it on a GPU suspend). */
    SuspendableArena gpuNet() {
        return gpuNet;
    }

    /** The arena that lives until teardown. */
    CountedArena persistent() {
        return persistent;
    }

    Scratch scratch() {
        return scratch;
    }

    /**
     * What a suspend releases and a resume restores: the connectors, over {@code transports}, with the ring
     * connections {@code ringNeeds} to make again; the shared area, or null.
     */
    void suspendable(Connections conns, List<Transport> usedTransports, List<Connections.Need> rings,
                     ShmPeerArea sharedArea) {
        this.connections = conns;
        this.transports = List.copyOf(usedTransports);
        this.ringNeeds = List.copyOf(rings);
        this.area = sharedArea;
    }

    MemoryLedger ledger() {
        return ledger;
    }

    MemoryStats stats() {
        return ledger.stats();
    }

    boolean suspended() {
        return ledger.isSuspended();
    }

    /**
     * Releases every suspendable allocation; collective (every rank, with every channel idle). The network
     * connectors stop on every rank (a barrier) before their connections close; then this rank forgets its
     * connectors, the shared area and the scratch buffer and frees their memory at once, peers' mappings with it.
     * Returns the bytes of this rank's own memory freed.
     */
    long release(PeerExchange bootstrap) {
        for (Transport t : transports) {
            t.quiesce();
        }
        bootstrap.barrier();
        for (Transport t : transports) {
            t.release();
        }
        connections.clear();
        if (area != null) {
            area.release();
        }
        scratch.release();
        return suspendable.release();
    }

    /** Maps the shared area again and reconnects the rings; collective (every rank). */
    void restore(PeerExchange bootstrap) {
        if (area != null) {
            area.remap(bootstrap);
        }
        if (!ringNeeds.isEmpty()) {
            connections.connect(ringNeeds);
        }
    }

    /** Frees everything for good (teardown, once no thread touches the memory any more). */
    void close() {
        gpuNet.close();
        suspendable.close();
        persistent.close();
    }
}
