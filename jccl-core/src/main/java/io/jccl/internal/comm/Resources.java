package io.jccl.internal.comm;

import io.jccl.MemoryStats;
import io.jccl.internal.bootstrap.Bootstrap;
import io.jccl.internal.transport.Connections;

/**
 * One line saying what a rank holds that grows with the communicator's size: bootstrap sockets (its listener and
 * the connections it opened or accepted), peers of this process it reaches without a socket, data connectors and the
 * peers they lead to, and its threads. With lazy connection and the sparse bootstrap these stay O(channels + log n)
 * per rank. Printed at INFO when init completes and by the status port ({@code ./jccl ras}).
 *
 * <p>Stateless; any thread. Mirrors: nothing in NCCL.
 */
final class Resources {
    private Resources() {
    }

    static String line(Bootstrap bootstrap, Connections conns, int nChannels, boolean proxy, MemoryStats memory) {
        return bootstrap.socketCount() + " bootstrap sockets, " + bootstrap.localPeerCount()
                + " in-process bootstrap peers, " + conns.count() + " connectors to " + conns.peers().length
                + " peers, " + nChannels + " channel threads" + (proxy ? " and a proxy thread" : "") + "; memory: "
                + memory.describe();
    }
}
