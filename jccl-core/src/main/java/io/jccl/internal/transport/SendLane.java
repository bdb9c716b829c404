package io.jccl.internal.transport;

import java.lang.foreign.MemorySegment;

/**
 * The producer end of one protocol's slots on a connector: {@link SendConn} for Simple (write into the slot, post
 * size and tail), {@link LineSendLane} for LL and LL128 (write into private staging, packed into flagged lines on
 * post). Primitives are written against this so the same algorithm code runs every protocol.
 * Owned by: the thread running the channel.
 */
public interface SendLane {
    /** A buffer of {@link #stepBytes()} to fill with the next step's payload (waits for credit). */
    MemorySegment acquire();

    /** Publishes {@code bytes} of the acquired buffer, tagged with the producing call's fingerprint (0: none). */
    void post(int bytes, long tag);

    /** True if {@link #acquire()} would not wait. */
    boolean ready();

    /** Payload capacity of one step. */
    int stepBytes();

    /** The receiving rank. */
    int peer();
}
