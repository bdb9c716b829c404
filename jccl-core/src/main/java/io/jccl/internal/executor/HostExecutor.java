package io.jccl.internal.executor;

import io.jccl.internal.algorithm.ChannelContext;
import io.jccl.internal.algorithm.Work;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.param.Params;

import java.util.List;

/**
 * Runs planned work on the host: one {@link ChannelWorker} per channel, items in submission order per channel. A
 * synchronous launch whose work fits one channel (and stays under {@code JCCL_INLINE_MAX_BYTES}, any size by default)
 * runs on the caller's own thread when the communicator is idle, which saves two thread hand-offs.
 *
 * <p>Owned by: the communicator; {@link #launch} is called by the (single) launching thread. Mirrors: the host
 * executor that stands in for NCCL's kernel launch on a CUDA stream.
 */
public final class HostExecutor {
    private final ChannelWorker[] workers;
    private final CommHealth health;
    private final long inlineMaxBytes;
    private final java.util.concurrent.atomic.AtomicInteger inlineRunning =
            new java.util.concurrent.atomic.AtomicInteger();

    public HostExecutor(ChannelContext[] contexts, CommHealth health, String threadPrefix, int spins) {
        this.health = health;
        this.inlineMaxBytes = Params.INLINE_MAX_BYTES.get();
        this.workers = new ChannelWorker[contexts.length];
        for (int c = 0; c < contexts.length; c++) {
            workers[c] = new ChannelWorker(contexts[c], health, threadPrefix + "-ch" + c, spins);
        }
    }

    public int nChannels() {
        return workers.length;
    }

    /**
     * Launches {@code works} in order. When {@code mayInline} and the work allows it, runs on this thread and
     * returns with the completion done; otherwise returns at once with items queued.
     */
    public void launch(List<Work> works, Completion completion, boolean mayInline) {
        if (mayInline && inlineable(works)) {
            completion.add(works.size());
            inlineRunning.incrementAndGet();
            try {
                for (Work w : works) {
                    workers[0].runInline(w, completion);
                }
            } finally {
                inlineRunning.decrementAndGet();
            }
            completion.sealed();
            return;
        }
        for (Work w : works) {
            completion.add(w.nChannels());
        }
        for (Work w : works) {
            for (int c = 0; c < w.nChannels(); c++) {
                workers[c].submit(new ChannelWorker.Item(w, completion));
            }
        }
        completion.sealed();
    }

    /**
     * Runs one work on the calling thread with channel 0's context, if the communicator is idle and the work fits
     * one channel; returns false (having done nothing) otherwise. Allocation-free; failures break the communicator.
     */
    public boolean runInlineNow(Work w) {
        if (w.nChannels() != 1 || w.bytes() > inlineMaxBytes || !idle()) {
            return false;
        }
        inlineRunning.lazySet(inlineRunning.getPlain() + 1);
        try {
            workers[0].runInlineOrThrow(w);
        } finally {
            inlineRunning.lazySet(inlineRunning.getPlain() - 1);
        }
        return true;
    }

    private boolean inlineable(List<Work> works) {
        for (Work w : works) {
            if (w.nChannels() != 1 || w.bytes() > inlineMaxBytes) {
                return false;
            }
        }
        for (ChannelWorker w : workers) {
            if (!w.idle()) {
                return false;
            }
        }
        return true;
    }

    /** True when no work is queued or running on any channel. */
    public boolean idle() {
        for (ChannelWorker w : workers) {
            if (!w.idle()) {
                return false;
            }
        }
        return true;
    }

    /** Stops the workers (they finish their current item first) and waits for them a little. */
    public void stop(long joinMillis) {
        for (ChannelWorker w : workers) {
            w.stop();
        }
        for (ChannelWorker w : workers) {
            w.join(joinMillis);
        }
    }

    /** True once every worker thread ended and no caller runs work inline (memory may then be released). */
    public boolean allStopped() {
        for (ChannelWorker w : workers) {
            if (w.isAlive()) {
                return false;
            }
        }
        return inlineRunning.get() == 0;
    }
}
