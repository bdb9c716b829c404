package io.jccl.internal.proxy;

import java.nio.channels.SelectableChannel;

/**
 * One network connector side progressed by the {@link ProxyThread}: a state machine that moves without blocking.
 * Owned by: the proxy thread only (after registration). Mirrors: NCCL's per-connector proxyProgress functions
 * (net.cc sendProxyProgress / recvProxyProgress).
 */
public interface ProxyConnection {
    /** Advances without blocking; true if anything moved. */
    boolean progress();

    /** Sockets to watch while the proxy sleeps (fixed for the connection's life; may be empty). */
    SelectableChannel[] channels();

    /** Selector interest for {@code channels()[i]} while the proxy sleeps: OP_READ, OP_WRITE or 0. */
    int sleepInterest(int i);

    /** False when progress may come without any channel becoming ready: the proxy then polls with short parks. */
    boolean canSleep();

    /** Closes the connection. */
    void close();
}
