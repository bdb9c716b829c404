package io.jccl;

import java.util.Map;

/**
 * The JMX view of one communicator rank, registered as
 * {@code io.jccl:type=Communicator,id=<comm id>,rank=<rank>} in the platform MBean server while the communicator is
 * open (unless {@code JCCL_JMX=0}), so JConsole, JDK Mission Control or any JMX exporter can read its counters.
 * Counts include every call made on this rank since creation; bytes are each call's {@code count} times the element
 * size (the per-rank payload). Keys of the per-algorithm maps are {@code ALGORITHM/PROTOCOL}, e.g.
 * {@code RING/SIMPLE}.
 */
public interface CommunicatorMXBean {
    /**
     * The communicator's id, the same on every rank.
     *
     * @return the communicator's id, the same on every rank
     */
    String getCommId();

    /**
     * The name given in {@link Config#commName()}, or an empty string.
     *
     * @return the name given in {@link Config#commName()}, or an empty string
     */
    String getName();

    /**
     * This rank.
     *
     * @return this rank
     */
    int getRank();

    /**
     * The number of ranks.
     *
     * @return the number of ranks
     */
    int getSize();

    /**
     * The number of hosts the ranks run on.
     *
     * @return the number of hosts the ranks run on
     */
    int getNodes();

    /**
     * The number of channels.
     *
     * @return the number of channels
     */
    int getChannels();

    /**
     * True once the communicator failed or was aborted.
     *
     * @return true once the communicator failed or was aborted
     */
    boolean isBroken();

    /**
     * The message of the error that broke the communicator, or an empty string.
     *
     * @return the message of the error that broke the communicator, or an empty string
     */
    String getAsyncError();

    /**
     * Calls made (collective and point-to-point).
     *
     * @return calls made (collective and point-to-point)
     */
    long getOperations();

    /**
     * Payload bytes of those calls.
     *
     * @return payload bytes of those calls
     */
    long getBytes();

    /**
     * Calls that ended with an error.
     *
     * @return calls that ended with an error
     */
    long getFailedOperations();

    /**
     * Calls per collective, keyed by NCCL name (AllReduce, Send, ...).
     *
     * @return calls per collective, keyed by NCCL name (AllReduce, Send, ...)
     */
    Map<String, Long> getOperationsByCollective();

    /**
     * Bytes per collective.
     *
     * @return bytes per collective
     */
    Map<String, Long> getBytesByCollective();

    /**
     * Calls per algorithm and protocol, e.g. {@code RING/SIMPLE}.
     *
     * @return calls per algorithm and protocol, e.g. {@code RING/SIMPLE}
     */
    Map<String, Long> getOperationsByAlgorithm();

    /**
     * Bytes per algorithm and protocol.
     *
     * @return bytes per algorithm and protocol
     */
    Map<String, Long> getBytesByAlgorithm();

    /**
     * Milliseconds communicator creation took on this rank.
     *
     * @return milliseconds communicator creation took on this rank
     */
    double getInitMillis();

    /**
     * Milliseconds per creation phase (BOOTSTRAP, PEER_INFO, ...).
     *
     * @return milliseconds per creation phase (BOOTSTRAP, PEER_INFO, ...)
     */
    Map<String, Double> getInitPhaseMillis();
}
