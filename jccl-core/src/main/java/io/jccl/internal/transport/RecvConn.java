package io.jccl.internal.transport;

import io.jccl.internal.base.Backoff;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.IdlePolicy;
import io.jccl.internal.base.Sleeper;
import io.jccl.internal.base.Waker;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;

/**
 * The worker's end of a connector from one peer on one channel: wait for the next slot to be posted, read it,
 * release it. Owned by: the one thread running this channel's primitives. Mirrors: the receive side of NCCL's
 * Simple-protocol primitives.
 */
public final class RecvConn implements RecvLane, BooleanSupplier {
    private final ConnFifo fifo;
    private final Waker waker;
    private final Backoff backoff;
    private final int peer;
    private final String waitName;
    private final String transport;
    private long step;
    private RecvLane ll;
    private RecvLane ll128;

    public RecvConn(ConnFifo fifo, Waker waker, CommHealth health, long timeoutNs, IdlePolicy policy, Sleeper sleeper,
            int rank, int peer, int channel,
                    String transport) {
        this.fifo = fifo;
        this.waker = waker;
        this.backoff = new Backoff(health, timeoutNs, policy, peer, sleeper);
        this.peer = peer;
        this.transport = transport;
        this.waitName = "rank " + rank + " receiving from rank " + peer + " (channel " + channel + ", " + transport
                + "): waiting for data";
    }

    @Override
    public int peer() {
        return peer;
    }

    /** Adds the flag-in-line lanes of a transport that has them (shared memory). */
    public void attachLines(RecvLane ll, RecvLane ll128) {
        this.ll = ll;
        this.ll128 = ll128;
    }

    /** The lane of a protocol: this connector for Simple ({@code null}), else its LL / LL128 lane (null if absent). */
    public RecvLane lane(LineFormat format) {
        return format == null ? this : format == LineFormat.LL ? ll : ll128;
    }

    @Override
    public MemorySegment await(int expectedBytes) {
        return await();
    }

    public String transport() {
        return transport;
    }

    @Override
    public int stepBytes() {
        return fifo.stepBytes();
    }

    /** Waits for the next step and returns its slot; {@link #size()} gives its byte count. */
    public MemorySegment await() {
        if (step >= fifo.tail()) {
            backoff.reset();
            while (step >= fifo.tail()) {
                backoff.idle(this, waitName);
            }
        }
        return fifo.slot(step);
    }

    /** True if {@link #await()} would not wait. */
    @Override
    public boolean ready() {
        return step < fifo.tail();
    }

    /** Byte count of the step returned by {@link #await()}. */
    @Override
    public int size() {
        return fifo.size(step);
    }

    @Override
    public long tag() {
        return fifo.tag(step);
    }

    /** Gives the slot back to the producer. */
    @Override
    public void release() {
        fifo.releaseHead(++step);
        VarHandle.fullFence();
        waker.wake();
    }

    public Backoff backoff() {
        return backoff;
    }

    @Override
    public boolean getAsBoolean() {
        return step >= fifo.tailVolatile();
    }
}
