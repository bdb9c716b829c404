package io.jccl.internal.transport;

/**
 * One way of moving a connector's slots between two ranks (NCCL's {@code ncclTransport}: p2p, shm, net). A
 * connection is made in two halves so that no rank ever blocks while holding back what a peer waits for: the
 * receiver first prepares its side and publishes a small blob (through the bootstrap), then the sender connects
 * with that blob, then the receiver completes.
 *
 * <p>Owned by: the communicator's launching thread during connection setup. Mirrors: ncclTransport's
 * canConnect/setup/connect.
 */
public interface Transport {
    /** Name shown in logs ({@code NET/Socket}, {@code SHM}). */
    String name();

    /** Prepares the receiving side of (peer → me, channel) with slots of {@code stepBytes}. */
    PendingRecv setupRecv(int peer, int channel, int stepBytes);

    /** Connects the sending side of (me → peer, channel) with the blob the receiver published. */
    SendConn connectSend(int peer, int channel, byte[] recvInfo);

    /**
     * Suspend, first half: stops moving data on this transport's connectors without closing anything, so that no
     * peer sees a connection close before it stopped as well (a transport without a proxy has nothing to do).
     */
    default void quiesce() {
    }

    /**
     * Suspend, second half, once every rank quiesced: closes the connections of this transport's connectors (their
     * memory goes with the communicator's suspendable arena). Later connections are set up anew.
     */
    default void release() {
    }

    /** A receiving side waiting for its sender. */
    interface PendingRecv {
        /** The blob the sender needs. */
        byte[] info();

        /** Waits for the sender and returns the worker's end. */
        RecvConn complete();
    }
}
