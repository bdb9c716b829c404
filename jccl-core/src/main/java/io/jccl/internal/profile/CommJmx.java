package io.jccl.internal.profile;

import io.jccl.CommunicatorMXBean;
import io.jccl.JcclException;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link CommunicatorMXBean} of one communicator rank, registered in the platform MBean server as
 * {@code io.jccl:type=Communicator,id=<id>,rank=<rank>} on a virtual thread (the platform server's first creation
 * takes hundreds of milliseconds, which communicator init should not wait for), and unregistered when the
 * communicator is destroyed, even if that happens before the registration ran.
 *
 * <p>Owned by: the registering virtual thread and the destroying thread (state changes under this object's lock);
 * attributes are read by JMX threads. Mirrors: nothing in NCCL.
 */
final class CommJmx implements CommunicatorMXBean {
    private final CommProbe probe;
    private final ObjectName objectName;
    private final CompletableFuture<ObjectName> registration = new CompletableFuture<>();
    private boolean registered;
    private boolean closed;

    private CommJmx(CommProbe probe, ObjectName objectName) {
        this.probe = probe;
        this.objectName = objectName;
    }

    /** Starts registering {@code probe}'s MXBean; null when JCCL_JMX is off or the name cannot be formed. */
    static CommJmx register(CommProbe probe) {
        if (!jmxEnabled()) {
            return null;
        }
        ObjectName name;
        try {
            name = objectName(probe.commId(), probe.rank());
        } catch (JMException e) {
            Log.warn(probe.rank(), "comm %s: no JMX bean (%s)", probe.commId(), e.getMessage());
            return null;
        }
        CommJmx bean = new CommJmx(probe, name);
        Thread.ofVirtual().name("jccl-jmx-" + probe.commId() + "-r" + probe.rank()).start(bean::registerNow);
        return bean;
    }

    private static boolean jmxEnabled() {
        try {
            return Params.JMX.get();
        } catch (JcclException e) {
            return true;
        }
    }

    /** The name this rank's bean has (or will have). */
    public static ObjectName objectName(String commId, int rank) throws JMException {
        return new ObjectName("io.jccl:type=Communicator,id=" + commId + ",rank=" + rank);
    }

    /** Completes with the bean's name once registered (or exceptionally when registration failed). */
    public CompletableFuture<ObjectName> registration() {
        return registration;
    }

    private void registerNow() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            synchronized (this) {
                if (!closed) {
                    server.registerMBean(this, objectName);
                    registered = true;
                }
            }
            Log.info(Subsys.INIT, probe.rank(), "comm %s: JMX bean %s", probe.commId(), objectName);
            registration.complete(objectName);
        } catch (JMException | RuntimeException e) {
            Log.trace(Subsys.INIT, probe.rank(), "comm %s: JMX bean %s not registered: %s", probe.commId(), objectName,
                    e);
            registration.completeExceptionally(e);
        }
    }

    /** Removes the bean (or prevents its registration). */
    synchronized void unregister() {
        closed = true;
        if (registered) {
            registered = false;
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(objectName);
            } catch (JMException e) {
                Log.trace(Subsys.INIT, probe.rank(), "comm %s: JMX unregister: %s", probe.commId(), e);
            }
        }
    }

    @Override
    public String getCommId() {
        return probe.commId();
    }

    @Override
    public String getName() {
        return probe.name();
    }

    @Override
    public int getRank() {
        return probe.rank();
    }

    @Override
    public int getSize() {
        return probe.nRanks();
    }

    @Override
    public int getNodes() {
        return probe.nNodes();
    }

    @Override
    public int getChannels() {
        return probe.nChannels();
    }

    @Override
    public boolean isBroken() {
        return probe.failure() != null;
    }

    @Override
    public String getAsyncError() {
        JcclException e = probe.failure();
        return e == null ? "" : e.result() + ": " + e.getMessage();
    }

    @Override
    public long getOperations() {
        return probe.counters().operations();
    }

    @Override
    public long getBytes() {
        return probe.counters().bytes();
    }

    @Override
    public long getFailedOperations() {
        return probe.counters().failures();
    }

    @Override
    public Map<String, Long> getOperationsByCollective() {
        return probe.counters().operationsByCollective();
    }

    @Override
    public Map<String, Long> getBytesByCollective() {
        return probe.counters().bytesByCollective();
    }

    @Override
    public Map<String, Long> getOperationsByAlgorithm() {
        return probe.counters().operationsByAlgorithm();
    }

    @Override
    public Map<String, Long> getBytesByAlgorithm() {
        return probe.counters().bytesByAlgorithm();
    }

    @Override
    public double getInitMillis() {
        return probe.initMillis();
    }

    @Override
    public Map<String, Double> getInitPhaseMillis() {
        return probe.initPhaseMillis();
    }
}
