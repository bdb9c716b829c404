package io.jccl.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.bootstrap.Bootstrap;
import io.jccl.internal.transport.PeerExchange;
import io.jccl.internal.transport.net.GpuNetConnections;

/**
 * What a GPU communicator built over a host communicator of the same ranks needs from it to wire GPUs across
 * hosts: where every rank runs ({@link #hostHash}), the communicator's keys and health, the bootstrap exchange, and
 * network connectors for kernels ({@link #net}) bound to the communicator's network plugin and proxy thread. They
 * live as long as the host communicator: closing or aborting it stops the proxy thread and closes the connectors.
 *
 * <p>Owned by: immutable; each part says which threads may use it (setup calls: the communicator's owner thread).
 * Mirrors: what NCCL's transports read from ncclComm during setup (peerInfo[].hostHash, bootstrap, proxyState).
 */
public final class GpuAccess {
    private final long[] hostHashes;
    private final AuthKeys keys;
    private final CommHealth health;
    private final Bootstrap exchange;
    private final GpuNetConnections net;

    GpuAccess(long[] hostHashes, AuthKeys keys, CommHealth health, Bootstrap exchange, GpuNetConnections net) {
        this.hostHashes = hostHashes.clone();
        this.keys = keys;
        this.health = health;
        this.exchange = exchange;
        this.net = net;
    }

    /**
     * The host of {@code rank} ({@code PeerInfo.hostHash}: host name, boot id and network namespace, or
     * {@code NCCL_HOSTID} when set): ranks with equal hashes share a host.
     */
    public long hostHash(int rank) {
        return hostHashes[rank];
    }

    /** The keys that authenticate this communicator's connections. */
    public AuthKeys keys() {
        return keys;
    }

    /** The communicator's abort flag and first failure: a failing proxy connector records its error here. */
    public CommHealth health() {
        return health;
    }

    /** The bootstrap: tagged messages, allGather and barrier over the ranks, with the communicator's deadline. */
    public PeerExchange exchange() {
        return exchange;
    }

    /**
     * Delivers every bootstrap message with {@code tag} to {@code listener} on the bootstrap's reader thread of the
     * sending peer (so one peer's messages arrive in the order it sent them), never queueing it for a receive.
     */
    public void onMessage(int tag, java.util.function.BiConsumer<Integer, byte[]> listener) {
        exchange.consume(tag, listener);
    }

    /** Sends a message without waiting long: false when {@code peer} could not be reached in {@code timeoutMs}. */
    public boolean trySend(int peer, int tag, byte[] payload, long timeoutMs) {
        return exchange.trySend(peer, tag, payload, timeoutMs);
    }

    /** True when this rank has a network plugin and proxy thread (some rank is on another host). */
    public boolean hasNet() {
        return net != null;
    }

    /**
     * Network connectors for kernels over this communicator's plugin and proxy thread, exchanging offers through
     * the bootstrap.
     *
     * @throws JcclException {@link Result#INVALID_USAGE} when every rank is on this host (no network, no proxy)
     */
    public GpuNetConnections net() {
        if (net == null) {
            throw new JcclException(Result.INVALID_USAGE, "rank " + exchange.rank() + ": every rank of this "
                    + "communicator is on this host; it has no network connections to carry GPU traffic");
        }
        return net;
    }
}
