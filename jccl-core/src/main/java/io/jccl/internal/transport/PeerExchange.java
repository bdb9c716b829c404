package io.jccl.internal.transport;

/**
 * What a transport needs from init to agree with its peers on connections: tagged messages to one peer, an
 * allGather and a barrier over every rank. The bootstrap network provides it; transports sit below the bootstrap and
 * see only this. Owned by: the init thread of the communicator (connection setup runs there).
 * Mirrors: the bootstrapSend/bootstrapRecv/bootstrapAllGather calls NCCL's transport setup makes.
 */
public interface PeerExchange {
    /** This rank. */
    int rank();

    /** Ranks of the communicator. */
    int nRanks();

    /** Sends a tagged message to {@code peer}; it is queued there until received. */
    void send(int peer, int tag, byte[] payload);

    /** The oldest message with {@code tag} from {@code peer}, waiting up to the communicator's deadline. */
    byte[] recv(int peer, int tag, String what);

    /** Every rank's {@code mine}, indexed by rank. */
    byte[][] allGather(byte[] mine);

    /** Returns when every rank has called it. */
    void barrier();
}
