package io.jccl.internal.bootstrap;

import io.jccl.internal.base.AuthKeys;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The peers of one rank whose bootstrap lives in this process (thread ranks of {@code initAll} or
 * {@code initRanks}): a message to them is put straight into their mailbox instead of crossing a socket, so ranks of
 * one process hold no bootstrap connections to each other (no file descriptor, no reader thread). A peer is found by
 * its listen address in a process-wide registry and accepted only when it belongs to the same communicator (the same
 * keys); any other peer is reached over a socket as before. Once found, a peer stays linked: its close is seen as
 * a failed write would be, and it is told this rank's goodbye on close, exactly as a socket peer is.
 *
 * <p>Owned by: the communicator's threads (any may send); the registry is shared by every communicator of the
 * process. Mirrors: NCCL's intra-process shortcuts (ranks of one process share host memory instead of sockets).
 */
final class LocalPeers {
    private static final ConcurrentHashMap<InetSocketAddress, Bootstrap> LISTENING = new ConcurrentHashMap<>();

    private final Bootstrap self;
    private final AuthKeys keys;
    private final InetSocketAddress[] addresses;
    private final Bootstrap[] found;
    private final boolean[] looked;
    private final boolean enabled;

    LocalPeers(Bootstrap self, AuthKeys keys, InetSocketAddress[] addresses, boolean enabled) {
        this.self = self;
        this.keys = keys;
        this.addresses = addresses;
        this.found = new Bootstrap[addresses.length];
        this.looked = new boolean[addresses.length];
        this.enabled = enabled;
    }

    /** Makes this rank reachable in-process at {@code me}. */
    void register(InetSocketAddress me) {
        if (enabled) {
            LISTENING.put(me, self);
        }
    }

    /** Ends in-process reachability (peers that already linked see this rank closed). */
    void unregister(InetSocketAddress me) {
        if (me != null) {
            LISTENING.remove(me, self);
        }
    }

    /** {@code peer}'s bootstrap when it lives in this process and belongs to this communicator, else null. */
    Bootstrap get(int peer) {
        synchronized (looked) {
            if (!looked[peer] && enabled && addresses[peer] != null) {
                Bootstrap b = LISTENING.get(addresses[peer]);
                if (b != null && b.rank() == peer && b.keys().equals(keys)) {
                    found[peer] = b;
                }
                looked[peer] = true;
            }
            return found[peer];
        }
    }

    /** The in-process peers linked so far (they get this rank's goodbye). */
    Bootstrap[] linked() {
        synchronized (looked) {
            return Arrays.stream(found).filter(b -> b != null).toArray(Bootstrap[]::new);
        }
    }

    /** How many in-process peers are linked. */
    int count() {
        return linked().length;
    }
}
