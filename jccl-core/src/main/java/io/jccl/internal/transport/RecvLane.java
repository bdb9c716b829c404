package io.jccl.internal.transport;

import java.lang.foreign.MemorySegment;

/**
 * The consumer end of one protocol's slots on a connector ({@link RecvConn} for Simple, {@link LineRecvLane} for LL and
 * LL128). Owned by: the thread running the channel.
 */
public interface RecvLane {
    /** Waits for the next step, which the caller expects to carry {@code expectedBytes}, and returns its payload. */
    MemorySegment await(int expectedBytes);

    /** Byte count the sender posted for the step returned by {@link #await} (to check against what was expected). */
    int size();

    /** The fingerprint the sender tagged the step with, or 0 when the protocol carries none (LL, LL128). */
    long tag();

    /** Gives the step's slot back to the sender. */
    void release();

    /** True if the next step has arrived (Simple only; line protocols answer after checking their flag). */
    boolean ready();

    int stepBytes();

    /** The sending rank. */
    int peer();
}
