package io.jccl.internal.ras;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.bootstrap.Bootstrap;
import io.jccl.internal.bootstrap.Goodbye.Departure;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.ras.RasMessages.LostNotice;
import io.jccl.internal.ras.RasMessages.PeerStatus;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Failure detection for one communicator: a virtual thread sends a heartbeat (carrying this rank's operation
 * status) to each watched peer every period, and a peer is declared lost when
 * <ul>
 *   <li>its bootstrap connection ends without a goodbye (killed or crashed), or with a failure goodbye;</li>
 *   <li>it is silent for longer than the heartbeat timeout (stopped, hung, unreachable host);</li>
 *   <li>it runs on this host and its process is gone;</li>
 *   <li>another rank says so (a lost-rank notice).</li>
 * </ul>
 * Losing a peer fails the communicator with an error that names the rank, its host and pid, and the operation this
 * rank was in; the rank that noticed tells every other, so all survivors fail at once. Nothing here runs on the
 * data path. Small communicators (up to {@link #FULL_MESH_MAX} ranks) watch every pair and tell every rank directly;
 * larger ones watch ring neighbours at distance 1 and 2 and pass notices along a sparse graph (ring neighbours at
 * distance 1, 2, 4, … 2^k): each rank forwards a notice the first time it hears it, so it reaches every rank in
 * about log2(n) hops while each rank talks to at most 2·log2(n) peers (NCCL's RAS floods its sparse peer graph alike).
 *
 * <p>Owned by: its thread "jccl-heartbeat-…"; listeners run on bootstrap reader threads. Mirrors: NCCL's RAS
 * keep-alives and dead-peer handling (ras.cc, peers.cc), attached to each communicator instead of a process.
 */
public final class PeerMonitor {
    static final int TAG_HEARTBEAT = 0x4a43_4501;
    static final int TAG_LOST = 0x4a43_4502;
    static final int TAG_MISMATCH = 0x4a43_4503;
    /**
     * How often the heartbeat thread looks for a stalled operation: one still in flight at two looks in a row gets
     * an extra heartbeat at once, so peers compare call logs within a fraction of a second of a stall.
     */
    private static final long STALL_TICK_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How long a send or receive and a collective must both wait before they are judged to wait for each other. */
    private static final int CROSSED_WAIT_MS = 500;
    /** Largest communicator in which every rank watches every other. */
    public static final int FULL_MESH_MAX = 16;
    /** Consecutive failed heartbeat sends after which a peer counts as unreachable. */
    private static final int MAX_SEND_FAILURES = 3;

    /** Where a rank runs, for messages and the process-liveness check. */
    public record Identity(String host, long pid, boolean sameHost) {
    }

    private final String commId;
    private final String commName;
    private final int rank;
    private final int nRanks;
    private final Bootstrap bootstrap;
    private final CommHealth health;
    private final OpStatus status;
    private final CallLog calls;
    private volatile Identity[] peers;
    private final long periodNs;
    private final long silenceLimitNs;
    private final int[] watched;
    private final int[] relay;
    private volatile java.util.function.Supplier<String> resources;
    private final boolean[] isWatched;
    private final AtomicLongArray lastHeardNs;
    private final AtomicReferenceArray<PeerStatus> latest;
    private final int[] sendFailures;
    private volatile long inFlightSinceNs;
    private long seenIssuedSeq;
    private long tickSeenSeq;
    private long stallBeatSeq;
    private final java.util.Queue<Thread> senders = new java.util.concurrent.ConcurrentLinkedQueue<>();

    private PeerMonitor(String commId, String commName, Bootstrap bootstrap, CommHealth health, OpStatus status,
                        CallLog calls, long periodMs, long silenceLimitMs) {
        this.commId = commId;
        this.commName = commName;
        this.rank = bootstrap.rank();
        this.nRanks = bootstrap.nRanks();
        this.bootstrap = bootstrap;
        this.health = health;
        this.status = status;
        this.calls = calls;
        this.peers = new Identity[nRanks];
        this.periodNs = TimeUnit.MILLISECONDS.toNanos(periodMs);
        this.silenceLimitNs = TimeUnit.MILLISECONDS.toNanos(silenceLimitMs);
        this.watched = watchSet(rank, nRanks);
        this.relay = relaySet(rank, nRanks);
        this.isWatched = new boolean[nRanks];
        for (int p : watched) {
            isWatched[p] = true;
        }
        this.lastHeardNs = new AtomicLongArray(nRanks);
        this.latest = new AtomicReferenceArray<>(nRanks);
        this.sendFailures = new int[nRanks];
        long now = System.nanoTime();
        for (int p = 0; p < nRanks; p++) {
            lastHeardNs.set(p, now);
        }
    }

    /**
     * Starts watching the peers of a communicator as soon as its bootstrap network is up (so a rank that dies during
     * the rest of init is noticed too). With {@code periodMs == 0} only connection events and notices are watched
     * (no heartbeats, no silence limit, no status port). Peers are named by rank until {@link #identify} tells where
     * they run.
     */
    public static PeerMonitor start(String commId, String commName, Bootstrap bootstrap, CommHealth health,
                                    OpStatus status, CallLog calls, long periodMs, long silenceLimitMs) {
        PeerMonitor m = new PeerMonitor(commId, commName, bootstrap, health, status, calls, Math.max(0, periodMs),
                periodMs > 0 ? Math.max(0, silenceLimitMs) : 0);
        bootstrap.consume(TAG_HEARTBEAT, m::heard);
        bootstrap.consume(TAG_LOST, m::notice);
        bootstrap.consume(TAG_MISMATCH, m::mismatchNotice);
        bootstrap.beforeClose(m::flushNotices);
        bootstrap.onDeparture(m::departed);
        if (m.nRanks > 1 && periodMs > 0) {
            // A failure seen on the data path (a step of another call, a lost connection) may be the echo of calls
            // that differed earlier: a heartbeat now lets the peers compare call logs and name the calls.
            health.onFailure(() -> Thread.ofVirtual().name("jccl-failure-beat-r" + m.rank)
                    .start(() -> m.beat(System.nanoTime())));
            Thread.ofVirtual().name("jccl-heartbeat-" + commId.substring(0, Math.min(8, commId.length())) + "-r"
                    + m.rank).start(m::run);
        }
        return m;
    }

    /** Where each rank runs (host, pid), once the peer infos are known; enables the process-liveness check. */
    public void identify(Identity[] ids) {
        this.peers = ids.clone();
    }

    /** The peers rank {@code r} sends heartbeats to and expects them from (a symmetric relation). */
    public static int[] watchSet(int r, int n) {
        java.util.TreeSet<Integer> s = new java.util.TreeSet<>();
        if (n <= FULL_MESH_MAX) {
            for (int p = 0; p < n; p++) {
                s.add(p);
            }
        } else {
            for (int d = 1; d <= 2; d++) {
                s.add((r + d) % n);
                s.add((r - d + n) % n);
            }
        }
        s.remove(r);
        return s.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * The peers rank {@code r} passes notices to: every other rank in a small communicator, else the ring neighbours
     * at distance 2^k in both directions (a symmetric graph of diameter about log2(n)).
     */
    public static int[] relaySet(int r, int n) {
        if (n <= FULL_MESH_MAX) {
            return watchSet(r, n);
        }
        java.util.TreeSet<Integer> s = new java.util.TreeSet<>();
        for (int d = 1; d < n; d *= 2) {
            s.add((r + d) % n);
            s.add((r - d + n) % n);
        }
        s.remove(r);
        return s.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Tells the status port how to describe what this rank holds. */
    public void resources(java.util.function.Supplier<String> line) {
        this.resources = line;
    }

    /** What this rank holds ("" until init is done). */
    String resources() {
        java.util.function.Supplier<String> r = resources;
        return r == null ? "" : r.get();
    }

    public String commId() {
        return commId;
    }

    public int rank() {
        return rank;
    }

    private void run() {
        long last = System.nanoTime();
        long nextBeat = last;
        long tickNs = Math.min(periodNs, STALL_TICK_NS);
        RasServer.register(this);
        try {
            while (!bootstrap.isClosed()) {
                long now = System.nanoTime();
                if (now - nextBeat >= 0) {
                    if (silenceLimitNs > 0 && now - last > silenceLimitNs / 2) {
                        // This process was stopped or starved, not the peers: restart their clocks.
                        for (int p = 0; p < nRanks; p++) {
                            lastHeardNs.set(p, now);
                        }
                    }
                    last = now;
                    nextBeat = now + periodNs;
                    beat(now);
                    check(System.nanoTime());
                } else if (stalled()) {
                    beat(now);
                }
                TimeUnit.NANOSECONDS.sleep(Math.max(1, Math.min(tickNs, nextBeat - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            Log.warn(rank, "comm %s: heartbeat thread failed: %s", commId, e);
        } finally {
            RasServer.unregister(this);
        }
    }

    /**
     * True once per operation that was in flight at this look and the previous one: it waits for something, and
     * the peers should compare their calls with it now rather than at the next heartbeat.
     */
    private boolean stalled() {
        OpStatus.Snapshot s = status.snapshot();
        boolean again = s.inFlight() && s.issuedSeq() == tickSeenSeq && s.issuedSeq() != stallBeatSeq;
        tickSeenSeq = s.issuedSeq();
        if (again) {
            stallBeatSeq = s.issuedSeq();
        }
        return again;
    }

    private void beat(long now) {
        byte[] hb = ownStatus(now).encode();
        long sendTimeoutMs = Math.max(1, Math.min(1000, TimeUnit.NANOSECONDS.toMillis(periodNs)));
        for (int p : watched) {
            if (health.isLost(p) || health.isPeerClosing(p) || bootstrap.isClosed()) {
                continue;
            }
            if (bootstrap.trySend(p, TAG_HEARTBEAT, hb, sendTimeoutMs)) {
                sendFailures[p] = 0;
            } else if (++sendFailures[p] >= MAX_SEND_FAILURES && !bootstrap.isClosed()) {
                lose(p, Result.REMOTE_ERROR, "cannot be reached: " + MAX_SEND_FAILURES + " heartbeats in a row could "
                        + "not be sent (its bootstrap port refuses or resets connections)", true);
            }
        }
    }

    private void check(long now) {
        for (int p : watched) {
            if (health.isLost(p) || health.isPeerClosing(p)) {
                continue;
            }
            long silentNs = now - lastHeardNs.get(p);
            if (silenceLimitNs > 0 && silentNs > silenceLimitNs) {
                lose(p, Result.TIMEOUT, String.format("sent no heartbeat for %.1f s (JCCL_HEARTBEAT_TIMEOUT_MS=%d): "
                        + "the process is stopped, hung, or its host is unreachable", silentNs / 1e9,
                        TimeUnit.NANOSECONDS.toMillis(silenceLimitNs)), true);
            } else if (peers[p] != null && peers[p].sameHost() && peers[p].pid() != ProcessHandle.current().pid()
                    && !ProcessHandle.of(peers[p].pid()).map(ProcessHandle::isAlive).orElse(false)) {
                lose(p, Result.REMOTE_ERROR, "exited without closing the communicator: its process is gone "
                        + "(killed or crashed)", true);
            }
        }
    }

    /** This rank's status as a heartbeat carries it. */
    synchronized PeerStatus ownStatus(long now) {
        OpStatus.Snapshot s = status.snapshot();
        if (s.issuedSeq() != seenIssuedSeq) {
            seenIssuedSeq = s.issuedSeq();
            inFlightSinceNs = now;
        }
        int inFlightMs = 0;
        String wait = "";
        if (s.inFlight()) {
            long since = inFlightSinceNs;
            inFlightMs = (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(now - since));
            Object w = health.lastWait();
            if (w != null && health.lastWaitNs() - since > -periodNs) {
                wait = String.valueOf(w);
            }
        }
        return new PeerStatus(s.issuedSeq(), s.completedSeq(), s.issued(), inFlightMs, wait, s.peer(),
                calls.recent());
    }

    private void heard(int peer, byte[] payload) {
        lastHeardNs.set(peer, System.nanoTime());
        PeerStatus st;
        try {
            st = PeerStatus.decode(payload);
        } catch (JcclException e) {
            Log.warn(rank, "comm %s: rank %d sent a %s", commId, peer, e.getMessage());
            return;
        }
        latest.set(peer, st);
        if (!health.isRootCauseFinal()) {
            String finding = CallMatch.compare(rank, calls, () -> ownStatus(System.nanoTime()), peer, st,
                    CROSSED_WAIT_MS);
            if (finding != null) {
                mismatch(finding + " (found by " + self() + ")", true);
            }
        }
    }

    private void mismatchNotice(int from, byte[] payload) {
        try {
            mismatch(RasMessages.MismatchNotice.decode(payload).text(), nRanks > FULL_MESH_MAX);
        } catch (JcclException e) {
            Log.warn(rank, "comm %s: rank %d sent a %s", commId, from, e.getMessage());
        }
    }

    /**
     * Fails this rank's communicator because ranks made different calls and, when this rank found it, tells every
     * other rank so that all fail at once with the same text.
     */
    private void mismatch(String text, boolean tellOthers) {
        if (health.isClosing() || health.isRevoked()) {
            return;
        }
        JcclException e = new JcclException(Result.INVALID_USAGE, text);
        if (!health.supersede(e)) {
            return;
        }
        Log.warn(rank, "comm %s: %s", commId, text);
        if (tellOthers) {
            tellAll(TAG_MISMATCH, new RasMessages.MismatchNotice(text).encode(), -1);
        }
    }

    private void notice(int from, byte[] payload) {
        LostNotice n;
        try {
            n = LostNotice.decode(payload, nRanks);
        } catch (JcclException e) {
            Log.warn(rank, "comm %s: rank %d sent a %s", commId, from, e.getMessage());
            return;
        }
        if (n.rank() == rank) {
            if (!health.isClosing()) {
                health.fail(new JcclException(Result.REMOTE_ERROR, "rank " + from + " declared this rank (" + rank
                        + ") lost: " + n.reason() + "; " + context()));
            }
            return;
        }
        lose(n.rank(), n.result(), "was declared lost by rank " + from + ": " + n.reason(), nRanks > FULL_MESH_MAX,
                n.primary(), payload);
    }

    private void departed(int peer, Departure kind, String reason) {
        if (peer == rank) {
            return;
        }
        switch (kind) {
            case ORDERLY -> health.peerClosing(peer);
            // In a full mesh every rank got the goodbye itself; in a larger communicator the ranks that got it pass
            // it on along the relay graph, so survivors agree on who left.
            case FAILED -> leftAfterFailure(peer, reason);
            case VANISHED -> {
                if (!health.isPeerClosing(peer)) {
                    lose(peer, Result.REMOTE_ERROR, "exited without closing the communicator: killed or crashed ("
                            + reason + ")", true);
                }
            }
        }
    }

    /**
     * Declares {@code peer} lost: records it, fails the communicator with an error naming it and this rank's
     * current operation, and (when this rank noticed first-hand) tells every other rank. A secondary loss (a peer
     * that left after a failure of its own) never hides a primary one.
     */
    private void lose(int peer, Result result, String why, boolean tellOthers) {
        lose(peer, result, why, tellOthers, true);
    }

    private void lose(int peer, Result result, String why, boolean tellOthers, boolean primary) {
        lose(peer, result, w -> w + " " + why, tellOthers, primary, null);
    }

    private void lose(int peer, Result result, String why, boolean tellOthers, boolean primary, byte[] notice) {
        lose(peer, result, w -> w + " " + why, tellOthers, primary, notice);
    }

    /**
     * Declares {@code peer} lost with the message {@code lead} makes of its description ("rank 2 (pid 1234 on host
     * h)"), followed by where this rank stood.
     */
    private void lose(int peer, Result result, java.util.function.UnaryOperator<String> lead, boolean tellOthers,
                      boolean primary, byte[] notice) {
        if (health.isClosing() || health.isLost(peer)) {
            return;
        }
        health.peerLost(peer);
        String text = lead.apply(describe(peer));
        Log.warn(rank, "comm %s: %s", commId, text);
        health.diagnose(new JcclException(result, text + "; " + context()), primary);
        if (tellOthers) {
            // a forwarded notice keeps its first-hand text, so every rank reports the same cause
            tellAll(TAG_LOST, notice != null ? notice : new LostNotice(peer, result, primary, text).encode(), peer);
        }
    }

    /**
     * A peer left after a failure and said why ({@code reason}: the failure that started it all, as it knew it). The
     * message leads with that cause, then says who left and where this rank stood. In a full mesh every rank got the
     * goodbye itself; in a larger communicator the ranks that got it pass it on along the relay graph, so survivors
     * agree on who left.
     */
    private void leftAfterFailure(int peer, String reason) {
        if (!health.isClosing() && !health.isLost(peer)) {
            health.adoptRootCause(reason);
        }
        lose(peer, Result.REMOTE_ERROR, who -> reason + " (then " + who + " left the communicator)",
                nRanks > FULL_MESH_MAX, false, null);
    }

    /** Waits (up to a second) for notices still being sent, so they reach the peers before this rank's goodbye. */
    private void flushNotices() {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        for (Thread t : senders) {
            long left = until - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                t.join(java.time.Duration.ofNanos(left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Sends {@code msg} to every rank of the relay graph (every rank of a small communicator) but {@code except} and
     * the lost, from a thread of its own.
     */
    private void tellAll(int tag, byte[] msg, int except) {
        senders.removeIf(t -> !t.isAlive());
        senders.add(Thread.ofVirtual().name("jccl-notice-r" + rank).start(() -> {
            for (int p : relay) {
                if (p != except && !health.isLost(p)) {
                    bootstrap.trySend(p, tag, msg, 1000);
                }
            }
        }));
    }

    /** "rank 2 (pid 1234 on host h)". */
    String describe(int peer) {
        Identity id = peers[peer];
        if (id == null) {
            return "rank " + peer + " (at " + bootstrap.address(peer) + ", during init)";
        }
        return "rank " + peer + " (pid " + id.pid() + " on " + id.host() + ")";
    }

    /** Where this rank stood: "rank 0 of comm 1a2b3c4d was in AllReduce (seq 58)". */
    private String context() {
        return self() + " was " + (status.snapshot().inFlight() ? "in " : "") + status.snapshot().describe();
    }

    /** "rank 0 of communicator 1a2b3c4d (name)". */
    private String self() {
        return "rank " + rank + " of communicator " + commId + (commName == null ? "" : " (" + commName + ")");
    }

    /** What a status query shows for this communicator, as seen from this rank. */
    public StatusReport.Comm snapshot() {
        long now = System.nanoTime();
        StatusReport.Row[] rows = new StatusReport.Row[nRanks];
        for (int p = 0; p < nRanks; p++) {
            PeerStatus s = p == rank ? ownStatus(now) : latest.get(p);
            String state;
            if (p == rank) {
                state = health.isBroken() ? "failed" : "alive";
            } else if (health.isLost(p)) {
                state = "LOST";
            } else if (health.isPeerClosing(p)) {
                state = "closing";
            } else if (!isWatched[p]) {
                state = "not watched here";
            } else if (periodNs > 0 && now - lastHeardNs.get(p) > 3 * periodNs) {
                state = String.format("silent %.1f s", (now - lastHeardNs.get(p)) / 1e9);
            } else {
                state = s == null ? "alive (no status yet)" : "alive";
            }
            Identity id = peers[p];
            rows[p] = new StatusReport.Row(p, id == null ? "?" : id.host(), id == null ? -1 : id.pid(), state, s);
        }
        JcclException f = health.failure();
        return new StatusReport.Comm(commId, commName, rank, nRanks, f == null ? null : f.getMessage(), rows);
    }

    @Override
    public String toString() {
        return "PeerMonitor[" + commId + " rank " + rank + "/" + nRanks + ", " + watched.length + " watched, "
                + Subsys.RAS + "]";
    }
}
