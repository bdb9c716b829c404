package io.jccl.cuda.internal.comm;

import io.jccl.Communicator;
import io.jccl.JcclException;
import io.jccl.MemoryStats;
import io.jccl.Result;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.internal.enqueue.GpuGroups;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.MemoryLedger;
import io.jccl.internal.comm.Agreement;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.transport.PeerExchange;

/**
 * Suspend and resume of one GPU rank (NCCL's {@code ncclCommSuspend} / {@code ncclCommResume} on a device
 * communicator), and its memory statistics. Suspend: this rank's GPU work finishes (a device synchronize), the ranks
 * agree over the host bootstrap (all go ahead or all refuse, each naming every refusing rank), each rank unmaps the
 * peers' areas it imported, a barrier, then frees its own area ({@link RankMemory#release}); then the host
 * communicator is suspended too. Resume takes the host communicator back, allocates the areas again, re-exchanges
 * addresses or IPC handles and maps the peers' ({@link RankMemory#restore}); the caller rewrites the kernels' tables.
 * Each suspend starts a new {@link #epoch()}: a CUDA graph captured before it holds the old addresses and is refused.
 *
 * <p>Thread: the communicator's owner; {@link #stats()} and the flags from any thread. Mirrors mem_manager.cc
 * (ncclCommMemSuspend, ncclCommMemResume, ncclCommMemStats).
 */
public final class GpuSuspension {
    private final String name;
    private final int rank;
    private final CudaDevice device;
    private final Communicator host;
    private final PeerExchange exchange;
    private final CommHealth health;
    private final RankMemory memory;
    private final MemoryLedger ledger;
    private volatile boolean suspended;
    private volatile int epoch;

    /**
     * {@code exchange} and {@code health}: the host communicator's bootstrap and health (up while it is suspended);
     * {@code ledger}: where this rank's GPU-side memory is counted.
     */
    public GpuSuspension(String name, int rank, CudaDevice device, Communicator host, PeerExchange exchange,
                         CommHealth health, RankMemory memory, MemoryLedger ledger) {
        this.name = name;
        this.rank = rank;
        this.device = device;
        this.host = host;
        this.exchange = exchange;
        this.health = health;
        this.memory = memory;
        this.ledger = ledger;
    }

    public boolean suspended() {
        return suspended;
    }

    /** Bumped by every suspend: what graphs captured on this communicator must still match to replay. */
    public int epoch() {
        return epoch;
    }

    /** This rank's memory: the GPU side's and its host communicator's, with whether it is suspended. */
    public MemoryStats stats() {
        return MemoryLedger.sum(ledger.stats(), host.memoryStats());
    }

    /**
     * Suspends; collective. {@code refusal}: the communicator's own reason to refuse (windows open), or null.
     *
     * @throws JcclException {@link Result#INVALID_USAGE} on every rank when any refused
     */
    public void suspend(String refusal) {
        String why = memory.suspendRefusal();
        String reason = suspended ? "rank " + rank + " is already suspended"
                : refusal != null ? "rank " + rank + " " + refusal
                : why != null ? "rank " + rank + ": " + why
                : GpuGroups.inGroup() ? "rank " + rank + " called it inside a GPU group" : "";
        if (reason.isEmpty()) {
            device.synchronize();   // this rank's kernels are done; after the agreement, every rank's are
        }
        Agreement.agree(exchange, health, rank, host.id(), "suspend (GPU)", reason);
        MemoryStats before = stats();
        long t0 = System.nanoTime();
        long own = ledger.ownBytes();
        suspended = true;
        epoch++;
        try {
            memory.release(exchange);
        } catch (JcclException e) {
            throw health.fail(e);
        }
        ledger.suspended(own - ledger.ownBytes());
        host.suspend();
        MemoryStats after = stats();
        if (Log.enabled(Log.Level.INFO, Subsys.INIT)) {
            Log.info(Subsys.INIT, rank, "%s suspend: released %s of device memory, %s host (%s pinned, %s "
                    + "shared), unmapped %s of peers' in %.1f ms; holds %s", name,
                    MemoryStats.size(before.deviceBytes() - after.deviceBytes()),
                    MemoryStats.size(before.hostBytes() + before.sharedBytes() + before.pinnedHostBytes()
                            - after.hostBytes() - after.sharedBytes() - after.pinnedHostBytes()),
                    MemoryStats.size(before.pinnedHostBytes() - after.pinnedHostBytes()),
                    MemoryStats.size(before.sharedBytes() - after.sharedBytes()),
                    MemoryStats.size(before.peerMappedBytes() - after.peerMappedBytes()),
                    (System.nanoTime() - t0) / 1e6, MemoryStats.size(after.totalBytes()));
        }
    }

    /**
     * Resumes; collective. Returns the kernels' new view of every rank's area.
     *
     * @throws JcclException {@link Result#INVALID_USAGE} on every rank when any is not suspended
     */
    public PeerAreas resume() {
        String reason = !suspended ? "rank " + rank + " is not suspended"
                : GpuGroups.inGroup() ? "rank " + rank + " called it inside a GPU group" : "";
        Agreement.agree(exchange, health, rank, host.id(), "resume (GPU)", reason);
        long t0 = System.nanoTime();
        if (host.memoryStats().suspended()) {
            host.resume();
        }
        PeerAreas peers;
        try {
            peers = memory.restore(exchange);
        } catch (JcclException e) {
            throw health.fail(e);
        }
        ledger.resumed();
        suspended = false;
        MemoryStats now = stats();
        if (Log.enabled(Log.Level.INFO, Subsys.INIT)) {
            Log.info(Subsys.INIT, rank, "%s resume: took back %s of device memory and %s host, mapped %s of peers' "
                    + "in %.1f ms (graphs captured before the suspend must be captured again)", name,
                    MemoryStats.size(now.deviceBytes()), MemoryStats.size(now.hostBytes() + now.sharedBytes()
                            + now.pinnedHostBytes()), MemoryStats.size(now.peerMappedBytes()),
                    (System.nanoTime() - t0) / 1e6);
        }
        return peers;
    }
}
