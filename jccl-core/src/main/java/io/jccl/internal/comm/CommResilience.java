package io.jccl.internal.comm;

import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.bootstrap.Bootstrap;
import io.jccl.internal.param.Params;
import io.jccl.internal.ras.CallLog;
import io.jccl.internal.ras.OpStatus;
import io.jccl.internal.ras.PeerMonitor;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The fault-tolerance side of one communicator, kept apart from the data path: the operation status the calling
 * thread updates, the peer monitor (heartbeats, lost-peer detection, status reports), revocation, and the creation
 * of child communicators (split, shrink).
 *
 * <p>Owned by: the communicator; status is written by the calling thread, the monitor runs on its own thread.
 * Mirrors: the RAS, revoke, split and shrink parts of NCCL's ncclComm.
 */
final class CommResilience {
    /** How long a failed operation waits for the diagnosis of a lost peer before reporting its symptom. */
    static final long DIAGNOSIS_WAIT_MS = 1000;
    private final CommHealth health;
    private final OpStatus status;
    private final CallLog calls = new CallLog();
    private final PeerMonitor monitor;
    private final Bootstrap bootstrap;
    private final Config config;
    private final long timeoutNs;
    private final String commId;
    private final int rank;
    private ChildComms children;

    private CommResilience(String commId, Config config, long timeoutNs, Bootstrap bootstrap, CommHealth health) {
        this.commId = commId;
        this.config = config;
        this.timeoutNs = timeoutNs;
        this.bootstrap = bootstrap;
        this.health = health;
        this.rank = bootstrap.rank();
        this.status = new OpStatus();
        this.monitor = PeerMonitor.start(commId, config.commName(), bootstrap, health, status, calls,
                Params.HEARTBEAT_MS.get(), Params.HEARTBEAT_TIMEOUT_MS.get());
    }

    /**
     * Starts watching the peers as soon as the bootstrap network is up, so a rank that dies during the rest of init
     * fails the init at once instead of at its timeout.
     */
    static CommResilience watch(String commId, Config config, long timeoutNs, Bootstrap bootstrap, CommHealth health) {
        return new CommResilience(commId, config, timeoutNs, bootstrap, health);
    }

    /** Init completed: tells the monitor where every rank runs and enables split and shrink. */
    CommResilience ready(PeerInfo[] peers) {
        PeerMonitor.Identity[] ids = new PeerMonitor.Identity[peers.length];
        for (PeerInfo p : peers) {
            ids[p.rank()] = new PeerMonitor.Identity(p.hostName(), p.pid(), p.hostHash() == peers[rank].hostHash());
        }
        monitor.identify(ids);
        Config childConfig = config.timeout() == null ? config.withTimeout(Duration.ofNanos(timeoutNs)) : config;
        this.children = new ChildComms(bootstrap, childConfig);
        return this;
    }

    /** What this rank holds (sockets, connectors, threads), for the status port. */
    void resources(java.util.function.Supplier<String> line) {
        monitor.resources(line);
    }

    OpStatus status() {
        return status;
    }

    CallLog calls() {
        return calls;
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

    /**
     * The error operation {@code seq} throws: when {@code e} is the symptom of a lost peer (a dropped connection, a
     * peer's forwarded error) or of calls that differed (a step of another call on the data path), waits up to
     * {@link #DIAGNOSIS_WAIT_MS} for the monitor's diagnosis (the lost rank; the two calls, from the ranks' call
     * logs) and reports that first, then the operation, with {@code e} as the cause. Only runs on failures.
     */
    JcclException explain(JcclException e, Collective c, long seq) {
        return seq <= 0 ? e : explain(e, c.ncclName() + " (seq " + seq + ")", "(seq " + seq + ")");
    }

    /** As above for an operation without a sequence number ({@code op} names it, e.g. "allocate"). */
    JcclException explain(JcclException e, String op, String marker) {
        if ((e.result() != Result.REMOTE_ERROR && e.result() != Result.TIMEOUT
                && e.result() != Result.INVALID_USAGE) || !health.isBroken()) {
            return e;
        }
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DIAGNOSIS_WAIT_MS);
        while (!health.isDiagnosisPrimary() && !health.isRevoked() && System.nanoTime() < until) {
            LockSupport.parkNanos(2_000_000L);
        }
        JcclException d = health.diagnosis();
        if (d == null || e.getMessage().contains(d.getMessage())) {
            return e;
        }
        String m = marker != null && d.getMessage().contains(marker) ? d.getMessage()
                : d.getMessage() + " [rank " + rank + ": " + op + " failed]";
        return new JcclException(d.result(), m, e);
    }

    int[] lostRanks() {
        return health.lostRanks();
    }
}
