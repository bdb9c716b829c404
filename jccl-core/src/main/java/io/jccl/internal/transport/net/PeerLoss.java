package io.jccl.internal.transport.net;

/**
 * When a proxy connection whose network request failed records that as this rank's failure. A peer that failed
 * first (a corrupted slot it caught, an abort, a timeout) closes its connections while its failure notice, which
 * names the root cause, travels over the bootstrap; the closed connection often arrives first. So the first failed
 * request only starts a short grace: the proxy keeps polling, and when the notice breaks the communicator meanwhile,
 * the notice is what every wait reports; after the grace the connection's own error is recorded (a peer that died
 * sends no notice). Thread: the proxy thread. Mirrors nothing in NCCL (its proxy reports a socket error at once).
 */
final class PeerLoss {
    /** How long a failed request waits for the peer's failure notice before it is reported as this rank's. */
    static final long GRACE_NS = 200_000_000L;
    private long firstNs;

    /** Whether a request that failed now should be reported; false during the grace after the first failure. */
    boolean reportNow() {
        long now = System.nanoTime();
        if (firstNs == 0) {
            firstNs = now;
            return false;
        }
        return now - firstNs >= GRACE_NS;
    }
}
