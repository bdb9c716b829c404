package io.jccl.internal.comm;

import io.jccl.JcclException;
import io.jccl.MemoryStats;
import io.jccl.Result;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.enqueue.GroupState;
import io.jccl.internal.ras.OpStatus;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code Communicator.suspend()} and {@code resume()}: every rank says whether it can (its reason if not: already
 * suspended, a call still in flight, inside a group) in one {@link Agreement}, so that all ranks go ahead or all
 * refuse alike, each naming every refusing rank. Suspend then releases the rank's suspendable memory
 * ({@link CommMemory#release}); resume takes it back ({@link CommMemory#restore}) and ends with a barrier, so no
 * rank's next call meets a peer still reconnecting. Both log what moved at INFO.
 *
 * <p>Thread: the communicator's caller, which holds it (its channel threads are idle). Mirrors NCCL's
 * ncclCommSuspend / ncclCommResume (mem_manager.cc: agreement by a bootstrap barrier, release, re-create, re-exchange,
 * final barrier), with the refusals made collective.
 */
final class CommSuspend {
    /** The longest suspend waits for this rank's calls in flight to finish before refusing. */
    static final long IN_FLIGHT_WAIT_MAX_NS = TimeUnit.SECONDS.toNanos(5);

    private CommSuspend() {
    }

    /** Suspends the communicator of {@code rt}; collective over every rank. */
    static void suspend(CommRuntime rt, OpStatus status) {
        CommMemory memory = rt.memory();
        String reason = memory.suspended() ? "rank " + rt.rank() + " is already suspended"
                : GroupState.inGroup() ? "rank " + rt.rank() + " called it inside a group"
                : inFlight(rt, status);
        agree(rt, "suspend", reason);
        MemoryStats before = memory.stats();
        long t0 = System.nanoTime();
        long freed;
        try {
            freed = memory.release(rt.bootstrap());
        } catch (JcclException e) {
            throw rt.health().fail(e);
        }
        memory.ledger().suspended(freed);
        MemoryStats after = memory.stats();
        if (Log.enabled(Log.Level.INFO, Subsys.INIT)) {
            Log.info(Subsys.INIT, rt.rank(), "comm %s rank %d suspend: released %s of device memory, %s host (%s "
                    + "native, %s shared) and unmapped %s of peers' in %.1f ms; holds %s", rt.id(), rt.rank(),
                    MemoryStats.size(before.deviceBytes() - after.deviceBytes()), MemoryStats.size(freed),
                    MemoryStats.size(before.hostBytes() - after.hostBytes()),
                    MemoryStats.size(before.sharedBytes() - after.sharedBytes()),
                    MemoryStats.size(before.peerMappedBytes() - after.peerMappedBytes()),
                    (System.nanoTime() - t0) / 1e6, MemoryStats.size(after.totalBytes()));
        }
    }

    /** Resumes the suspended communicator of {@code rt}; collective over every rank. */
    static void resume(CommRuntime rt) {
        CommMemory memory = rt.memory();
        String reason = !memory.suspended() ? "rank " + rt.rank() + " is not suspended"
                : GroupState.inGroup() ? "rank " + rt.rank() + " called it inside a group" : "";
        agree(rt, "resume", reason);
        long t0 = System.nanoTime();
        try {
            memory.restore(rt.bootstrap());
            rt.bootstrap().barrier();
        } catch (JcclException e) {
            throw rt.health().fail(e);
        }
        memory.ledger().resumed();
        MemoryStats after = memory.stats();
        if (Log.enabled(Log.Level.INFO, Subsys.INIT)) {
            Log.info(Subsys.INIT, rt.rank(), "comm %s rank %d resume: took back %s in %.1f ms (host %s, shared %s, "
                    + "peers' mapped %s); the rings are connected again", rt.id(), rt.rank(),
                    MemoryStats.size(after.totalBytes()), (System.nanoTime() - t0) / 1e6,
                    MemoryStats.size(after.hostBytes()), MemoryStats.size(after.sharedBytes()),
                    MemoryStats.size(after.peerMappedBytes()));
        }
    }

    /**
     * Waits (at most a quarter of the communicator's timeout, and {@link #IN_FLIGHT_WAIT_MAX_NS}: the calls
     * themselves wait for peers up to the whole timeout) for this rank's channels
     * to go idle; the reason to refuse when they did not, else "".
     */
    private static String inFlight(CommRuntime rt, OpStatus status) {
        long deadline = System.nanoTime() + Math.min(rt.timeoutNs() / 4, IN_FLIGHT_WAIT_MAX_NS);
        while (!rt.idle() && !rt.health().isBroken() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(200_000L);
        }
        if (rt.idle()) {
            return "";
        }
        OpStatus.Snapshot s = status.snapshot();
        return "rank " + rt.rank() + " still has " + (s.inFlight() ? s.describe() : "a call") + " in flight (wait "
                + "for its future first)";
    }

    private static void agree(CommRuntime rt, String what, String reason) {
        Agreement.agree(rt.bootstrap(), rt.health(), rt.rank(), rt.id(), what, reason);
    }

    /** The error of a call made while suspended. */
    static JcclException suspendedError(int rank, String call, String commId) {
        return new JcclException(Result.INVALID_USAGE, "rank " + rank + ": " + call + " called on communicator "
                + commId + " while it is suspended; resume() it first");
    }
}
