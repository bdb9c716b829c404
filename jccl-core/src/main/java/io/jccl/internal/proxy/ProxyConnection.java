package io.jccl.internal.proxy;

import java.nio.channels.SelectableChannel;

/**
 * One network connector side progressed by the {@link ProxyThread}: a state machine that moves at most one step per
 * call without blocking. Owned by: the proxy thread only (after registration). Mirrors: NCCL's per-connector
 * proxyProgress functions (net.cc sendProxyProgress / recvProxyProgress).
 */
public interface ProxyConnection {
    /** Advances without blocking; true if anything moved. */
    boolean progress();

    /** The socket, for the proxy's selector while it sleeps. */
    SelectableChannel channel();

    /** Selector interest while the proxy sleeps: OP_READ when it could take data, OP_WRITE when a write is stuck. */
    int sleepInterest();

    /** Closes the socket. */
    void close();
}
