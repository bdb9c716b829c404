package io.jccl.internal.transport;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.Backoff;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.IdlePolicy;
import io.jccl.internal.base.Sleeper;
import io.jccl.internal.base.Waker;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;

/**
 * The worker's end of a connector towards one peer on one channel: wait for a free slot (credit), fill it, post it.
 * Steps only grow; slot {@code step % NSTEPS} is free once {@code head > step - NSTEPS}.
 *
 * <p>Owned by: the one thread running this channel's primitives (channel worker or caller running inline).
 * Mirrors: the send side of NCCL's Simple-protocol primitives (waitPeer / postPeer on connStepPtr).
 */
public final class SendConn implements SendLane, BooleanSupplier {
    private final ConnFifo fifo;
    private final Waker waker;
    private final Backoff backoff;
    private final int peer;
    private final String waitName;
    private final String transport;
    private long step;
    private SendLane ll;
    private SendLane ll128;

    public SendConn(ConnFifo fifo, Waker waker, CommHealth health, long timeoutNs, IdlePolicy policy, Sleeper sleeper,
            int rank, int peer, int channel,
                    String transport) {
        this.fifo = fifo;
        this.waker = waker;
        this.backoff = new Backoff(health, timeoutNs, policy, peer, sleeper);
        this.peer = peer;
        this.transport = transport;
        this.waitName = "rank " + rank + " sending to rank " + peer + " (channel " + channel + ", " + transport
                + "): waiting for the peer to free a slot";
    }

    @Override
    public int peer() {
        return peer;
    }

    /** Adds the flag-in-line lanes of a transport that has them (shared memory). */
    public void attachLines(SendLane ll, SendLane ll128) {
        this.ll = ll;
        this.ll128 = ll128;
    }

    /** The lane of a protocol: this connector for Simple ({@code null}), else its LL / LL128 lane (null if absent). */
    public SendLane lane(LineFormat format) {
        return format == null ? this : format == LineFormat.LL ? ll : ll128;
    }

    public String transport() {
        return transport;
    }

    /** Largest payload of one step. */
    @Override
    public int stepBytes() {
        return fifo.stepBytes();
    }

    /** The slot of the next step, waiting for credit. */
    @Override
    public MemorySegment acquire() {
        if (step >= fifo.head() + ConnFifo.NSTEPS) {
            backoff.reset();
            while (step >= fifo.head() + ConnFifo.NSTEPS) {
                backoff.idle(this, waitName);
            }
        }
        return fifo.slot(step);
    }

    /** True if {@link #acquire()} would not wait. */
    @Override
    public boolean ready() {
        return step < fifo.head() + ConnFifo.NSTEPS;
    }

    /** Publishes {@code bytes} bytes written into the acquired slot. */
    @Override
    public void post(int bytes, long tag) {
        if (bytes > fifo.stepBytes()) {
            throw new JcclException(Result.INTERNAL_ERROR, "step of " + bytes + " bytes exceeds slot of "
                    + fifo.stepBytes());
        }
        fifo.setSize(step, bytes);
        fifo.setTag(step, tag);
        fifo.releaseTail(++step);
        VarHandle.fullFence();
        waker.wake();
    }

    /** The backoff of this side, so the party that frees slots can wake us. */
    public Backoff backoff() {
        return backoff;
    }

    /** Still waiting for credit (used by the backoff before parking). */
    @Override
    public boolean getAsBoolean() {
        return step >= fifo.headVolatile() + ConnFifo.NSTEPS;
    }
}
