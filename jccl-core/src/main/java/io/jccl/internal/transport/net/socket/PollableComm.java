package io.jccl.internal.transport.net.socket;

import java.nio.channels.SelectableChannel;

/**
 * Optional side of a plugin comm that lets the proxy thread sleep in its selector instead of polling: the sockets
 * whose readiness means the comm can move, and what to wait for on each. Comms without it (or that say they cannot
 * be woken, e.g. while helper threads move their data) are polled with a short park.
 *
 * <p>Owned by: the proxy thread. Mirrors: nothing in NCCL (its proxy only polls); it keeps an idle JVM quiet.
 */
public interface PollableComm {
    /** The comm's sockets, in a fixed order. */
    SelectableChannel[] channels();

    /** Interest ops for {@code channels()[i]} while the proxy sleeps: OP_READ, OP_WRITE or 0. */
    int sleepInterest(int i);

    /** False while progress can happen without any of {@link #channels()} becoming ready (helper threads). */
    boolean wakesOnChannels();
}
