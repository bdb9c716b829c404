package io.jccl.internal.executor;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.algorithm.ChannelContext;
import io.jccl.internal.algorithm.Work;
import io.jccl.internal.base.CommHealth;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The thread that runs one channel's part of every operation, in submission order (what one CUDA block does for a
 * channel in NCCL). While its queue is empty the caller may run channel work inline instead (see
 * {@link HostExecutor}). Owned by: its own thread; {@link #submit} is called by the launching thread.
 * Mirrors: a kernel block's work loop over ncclDevWorkColl/P2p items.
 */
final class ChannelWorker implements Runnable {
    /** One queued channel item. */
    record Item(Work work, Completion completion) {
    }

    /** Longest sleep of an idle worker between looks at its queue. */
    private static final long IDLE_PARK_NS = 100_000_000L;

    private final ChannelContext ctx;
    private final int spins;
    private final CommHealth health;
    private final ArrayBlockingQueue<Item> queue = new ArrayBlockingQueue<>(4096);
    private final AtomicLong submitted = new AtomicLong();
    private final AtomicLong finished = new AtomicLong();
    private final Thread thread;
    private volatile boolean parked;
    private volatile boolean stopping;

    ChannelWorker(ChannelContext ctx, CommHealth health, String name, int spins) {
        this.ctx = ctx;
        this.spins = spins;
        this.health = health;
        this.thread = new Thread(this, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** True when nothing is queued or running. */
    boolean idle() {
        return submitted.get() == finished.get();
    }

    void submit(Item item) {
        submitted.incrementAndGet();
        try {
            queue.put(item);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            finished.incrementAndGet();
            item.completion().itemDone(new JcclException(Result.SYSTEM_ERROR, "interrupted while submitting work"));
            return;
        }
        if (parked) {
            LockSupport.unpark(thread);
        }
    }

    /** Runs an item on the calling thread (inline path); the caller guarantees the worker is idle. */
    void runInline(Work work, Completion completion) {
        execute(work, completion);
    }

    /** Runs a work on the calling thread; a failure breaks the communicator and is thrown. */
    void runInlineOrThrow(Work work) {
        if (health.isBroken()) {
            throw health.brokenError("rank " + ctx.rank() + ": " + work.description() + " not run");
        }
        try {
            work.run(ctx);
        } catch (JcclException e) {
            health.fail(e);
            throw e;
        } catch (RuntimeException | Error e) {
            JcclException j = new JcclException(Result.INTERNAL_ERROR, "rank " + ctx.rank() + " channel "
                    + ctx.channel()
                    + ": " + work.description() + " failed: " + e, e);
            health.fail(j);
            throw j;
        }
    }

    @Override
    public void run() {
        int idle = 0;
        while (!stopping) {
            Item it = queue.poll();
            if (it == null) {
                if (++idle < spins) {
                    Thread.onSpinWait();
                } else {
                    parked = true;
                    if (queue.isEmpty() && !stopping) {
                        // submit and stop unpark; the timeout is only a safety net, long enough that hundreds of
                        // idle ranks in one process do not wake the cores every millisecond
                        LockSupport.parkNanos(this, IDLE_PARK_NS);
                    }
                    parked = false;
                }
                continue;
            }
            idle = 0;
            execute(it.work(), it.completion());
            finished.incrementAndGet();
        }
        for (Item it; (it = queue.poll()) != null; ) {
            it.completion().itemDone(health.brokenError("communicator closed before " + it.work().description()
                    + " ran"));
            finished.incrementAndGet();
        }
    }

    private void execute(Work work, Completion completion) {
        if (health.isBroken()) {
            completion.itemDone(health.brokenError("rank " + ctx.rank() + ": " + work.description() + " not run"));
            return;
        }
        try {
            work.run(ctx);
            completion.itemDone(null);
        } catch (JcclException e) {
            health.fail(e);
            completion.itemDone(e);
        } catch (RuntimeException | Error e) {
            JcclException j = new JcclException(Result.INTERNAL_ERROR, "rank " + ctx.rank() + " channel "
                    + ctx.channel()
                    + ": " + work.description() + " failed: " + e, e);
            health.fail(j);
            completion.itemDone(j);
        }
    }

    void stop() {
        stopping = true;
        LockSupport.unpark(thread);
    }

    void join(long millis) {
        try {
            thread.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    boolean isAlive() {
        return thread.isAlive();
    }
}
