package io.jccl.internal.comm;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.internal.bootstrap.Bootstrap;
import io.jccl.internal.param.Params;
import io.jccl.internal.ras.OpStatus;
import io.jccl.internal.ras.PeerMonitor;

import java.time.Duration;

/**
 * The fault-tolerance side of one communicator, kept apart from the data path: the operation status the calling
 * thread updates, the peer monitor (heartbeats, lost-peer detection, status reports), revocation, and the creation
 * of child communicators (split, shrink).
 *
 * <p>Owned by: the communicator; status is written by the calling thread, the monitor runs on its own thread.
 * Mirrors: the RAS, revoke, split and shrink parts of NCCL's ncclComm.
 */
final class CommResilience {
    private final CommHealth health;
    private final OpStatus status = new OpStatus();
    private final ChildComms children;
    private final String commId;
    private final int rank;

    private CommResilience(CommHealth health, ChildComms children, String commId, int rank) {
        this.health = health;
        this.children = children;
        this.commId = commId;
        this.rank = rank;
    }

    /** Starts watching the peers of a communicator whose init just completed. */
    static CommResilience start(String commId, Config config, long timeoutNs, Bootstrap bootstrap, CommHealth health,
                                PeerInfo[] peers, int rank) {
        Config childConfig = config.timeout() == null ? config.withTimeout(Duration.ofNanos(timeoutNs)) : config;
        CommResilience r = new CommResilience(health, new ChildComms(bootstrap, childConfig), commId, rank);
        PeerMonitor.Identity[] ids = new PeerMonitor.Identity[peers.length];
        for (PeerInfo p : peers) {
            ids[p.rank()] = new PeerMonitor.Identity(p.hostName(), p.pid(), p.hostHash() == peers[rank].hostHash());
        }
        PeerMonitor.start(commId, config.commName(), bootstrap, health, r.status, ids, Params.HEARTBEAT_MS.get(),
                Params.HEARTBEAT_TIMEOUT_MS.get());
        return r;
    }

    OpStatus status() {
        return status;
    }

    Communicator split(int color, int key) {
        return children.split(color, key);
    }

    Communicator shrink(int[] excluded) {
        return children.shrink(excluded);
    }

    /** Stops in-flight work on this rank and tells the peers; resources stay until close. */
    void revoke() {
        health.revoke("communicator " + commId + " was revoked by rank " + rank);
    }

    int[] lostRanks() {
        return health.lostRanks();
    }
}
