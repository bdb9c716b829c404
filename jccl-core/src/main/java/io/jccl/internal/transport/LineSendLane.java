package io.jccl.internal.transport;

import io.jccl.internal.base.Backoff;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.IdlePolicy;
import io.jccl.internal.base.Sleeper;
import io.jccl.internal.base.Waker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;

/**
 * Sending side of LL / LL128: the worker fills a private staging buffer; {@link #post} copies it into the slot line by
 * line, each line's data followed by its flag (release), then bumps {@code tail} for a receiver that sleeps. The
 * receiver needs no separate publication to read: the last line's flag is it.
 * Owned by: the thread running the channel.
 */
public final class LineSendLane implements SendLane, BooleanSupplier {
    private static final ValueLayout.OfLong LONG_U = ValueLayout.JAVA_LONG_UNALIGNED;

    private final LineRegion region;
    private final LineFormat f;
    private final MemorySegment staging;
    private final Backoff backoff;
    private final Waker tailWaker;
    private final int peer;
    private final String waitName;
    private long step;

    public LineSendLane(LineRegion region, Arena arena, CommHealth health, long timeoutNs, IdlePolicy policy,
                        Sleeper headSleeper, Waker tailWaker, int rank, int peer, int channel) {
        this.region = region;
        this.f = region.format();
        this.staging = arena.allocate(f.stepDataBytes() + 8L, 64);
        this.backoff = new Backoff(health, timeoutNs, policy, peer, headSleeper);
        this.tailWaker = tailWaker;
        this.peer = peer;
        this.waitName = "rank " + rank + " sending to rank " + peer + " (channel " + channel + ", " + f
                + "): waiting for the peer to free a slot";
    }

    @Override
    public MemorySegment acquire() {
        if (step >= region.head() + ConnFifo.NSTEPS) {
            backoff.reset();
            while (step >= region.head() + ConnFifo.NSTEPS) {
                backoff.idle(this, waitName);
            }
        }
        return staging;
    }

    @Override
    public void post(int bytes, long tag) {
        MemorySegment slot = region.slot(step);
        long flag = LineFormat.flag(step, bytes);
        int lines = f.lines(bytes);
        if (f == LineFormat.LL) {
            for (int i = 0; i < lines; i++) {
                slot.set(ValueLayout.JAVA_LONG, (long) i * 16, staging.get(LONG_U, (long) i * 8));
                region.releaseFlag(slot, i, flag);
            }
        } else {
            for (int i = 0; i < lines; i++) {
                int n = Math.min(f.dataBytes, Math.max(0, bytes - i * f.dataBytes));
                MemorySegment.copy(staging, (long) i * f.dataBytes, slot, (long) i * f.lineBytes, n);
                region.releaseFlag(slot, i, flag);
            }
        }
        region.releaseTail(++step);
        VarHandle.fullFence();
        tailWaker.wake();
    }

    @Override
    public boolean ready() {
        return step < region.head() + ConnFifo.NSTEPS;
    }

    @Override
    public int stepBytes() {
        return f.stepDataBytes();
    }

    @Override
    public int peer() {
        return peer;
    }

    @Override
    public boolean getAsBoolean() {
        return step >= region.headVolatile() + ConnFifo.NSTEPS;
    }
}
