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
 * Receiving side of LL / LL128: waits until the flag of the last line the caller expects carries this step
 * (acquire), then unpacks the lines into a private staging buffer; the flag's byte count tells whether the sender
 * sent what was expected. Release returns the slot with {@code head}.
 * Owned by: the thread running the channel.
 */
public final class LineRecvLane implements RecvLane, BooleanSupplier {
    private static final ValueLayout.OfLong LONG_U = ValueLayout.JAVA_LONG_UNALIGNED;

    private final LineRegion region;
    private final LineFormat f;
    private final MemorySegment staging;
    private final Backoff backoff;
    private final Waker headWaker;
    private final int peer;
    private final String waitName;
    private long step;
    private int waitLine;
    private int size;

    public LineRecvLane(LineRegion region, Arena arena, CommHealth health, long timeoutNs, IdlePolicy policy,
                        Sleeper tailSleeper, Waker headWaker, int rank, int peer, int channel) {
        this.region = region;
        this.f = region.format();
        this.staging = arena.allocate(f.stepDataBytes() + 8L, 64);
        this.backoff = new Backoff(health, timeoutNs, policy, peer, tailSleeper);
        this.headWaker = headWaker;
        this.peer = peer;
        this.waitName = "rank " + rank + " receiving from rank " + peer + " (channel " + channel + ", " + f
                + "): waiting for data";
    }

    @Override
    public MemorySegment await(int expectedBytes) {
        waitLine = f.lines(expectedBytes) - 1;
        long flag = region.flag(step, waitLine);
        if (!LineFormat.isStep(flag, step)) {
            backoff.reset();
            while (!LineFormat.isStep(flag = region.flag(step, waitLine), step)) {
                backoff.idle(this, waitName);
            }
        }
        size = LineFormat.bytesOf(flag);
        int bytes = Math.min(size, expectedBytes);
        MemorySegment slot = region.slot(step);
        int lines = f.lines(bytes);
        if (f == LineFormat.LL) {
            for (int i = 0; i < lines; i++) {
                staging.set(LONG_U, (long) i * 8, slot.get(ValueLayout.JAVA_LONG, (long) i * 16));
            }
        } else {
            for (int i = 0; i < lines; i++) {
                int n = Math.min(f.dataBytes, Math.max(0, bytes - i * f.dataBytes));
                MemorySegment.copy(slot, (long) i * f.lineBytes, staging, (long) i * f.dataBytes, n);
            }
        }
        return staging;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public long tag() {
        return 0;
    }

    @Override
    public void release() {
        region.releaseHead(++step);
        VarHandle.fullFence();
        headWaker.wake();
    }

    @Override
    public boolean ready() {
        return LineFormat.isStep(region.flag(step, 0), step);
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
        return !LineFormat.isStep(region.flag(step, waitLine), step);
    }
}
