package io.jccl.internal.bootstrap;

import io.jccl.internal.bootstrap.Goodbye.Departure;
import io.jccl.internal.debug.Log;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * How each peer of one rank left its bootstrap network: an orderly close, a failure it announced, or a connection
 * that just ended. The first report for a peer wins; it ends the waits on that peer's messages and is told to every
 * {@link Bootstrap.DepartureListener}, including those registered after it happened.
 *
 * <p>Owned by: the bootstrap's reader threads (they report) and the communicator's threads (they ask); guarded by
 * the array of departures. Mirrors: nothing in NCCL, whose bootstrap has no notion of a peer leaving.
 */
final class Departures {
    private final int rank;
    private final Mailbox mailbox;
    private final Goodbye[] departed;
    private final List<Bootstrap.DepartureListener> listeners = new CopyOnWriteArrayList<>();

    Departures(int rank, int nRanks, Mailbox mailbox) {
        this.rank = rank;
        this.mailbox = mailbox;
        this.departed = new Goodbye[nRanks];
    }

    /** How {@code peer} left, or null while it has not. */
    Goodbye of(int peer) {
        synchronized (departed) {
            return departed[peer];
        }
    }

    /** Calls {@code l} for every peer departure, including those that already happened. */
    void listen(Bootstrap.DepartureListener l) {
        listeners.add(l);
        for (int p = 0; p < departed.length; p++) {
            Goodbye g = of(p);
            if (g != null) {
                l.departed(p, g.kind(), g.reason());
            }
        }
    }

    /** Records how {@code peer} left (the first report wins) and tells waits and listeners. */
    void depart(int peer, Goodbye g) {
        synchronized (departed) {
            if (departed[peer] != null) {
                return;
            }
            departed[peer] = g;
        }
        mailbox.peerClosed(peer, g.kind() == Departure.ORDERLY ? "it closed the communicator" : g.reason());
        for (Bootstrap.DepartureListener l : listeners) {
            try {
                l.departed(peer, g.kind(), g.reason());
            } catch (RuntimeException e) {
                Log.warn(rank, "bootstrap: departure listener failed: %s", e);
            }
        }
    }
}
