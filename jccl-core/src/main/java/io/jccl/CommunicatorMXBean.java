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
    /** @return the communicator's id, the same on every rank */
    String getCommId();

    /** @return the name given in {@link Config#commName()}, or an empty string */
    String getName();

    /** @return this rank */
    int getRank();

    /** @return the number of ranks */
    int getSize();

    /** @return the number of hosts the ranks run on */
    int getNodes();

    /** @return the number of channels */
    int getChannels();

    /** @return true once the communicator failed or was aborted */
    boolean isBroken();

    /** @return the message of the error that broke the communicator, or an empty string */
    String getAsyncError();

    /** @return calls made (collective and point-to-point) */
    long getOperations();

    /** @return payload bytes of those calls */
    long getBytes();

    /** @return calls that ended with an error */
    long getFailedOperations();

    /** @return calls per collective, keyed by NCCL name (AllReduce, Send, ...) */
    Map<String, Long> getOperationsByCollective();

    /** @return bytes per collective */
    Map<String, Long> getBytesByCollective();

    /** @return calls per algorithm and protocol, e.g. {@code RING/SIMPLE} */
    Map<String, Long> getOperationsByAlgorithm();

    /** @return bytes per algorithm and protocol */
    Map<String, Long> getBytesByAlgorithm();

    /** @return milliseconds communicator creation took on this rank */
    double getInitMillis();

    /** @return milliseconds per creation phase (BOOTSTRAP, PEER_INFO, ...) */
    Map<String, Double> getInitPhaseMillis();
}
