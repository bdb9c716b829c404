package io.jccl;

import io.jccl.internal.bootstrap.BootstrapRoot;
import io.jccl.internal.enqueue.GroupState;

/** Entry points that are not tied to one communicator. */
public final class Jccl {
    /** The library version, as the build set it (without a -SNAPSHOT suffix). */
    public static final String VERSION = buildVersion();

    private Jccl() {
    }

    /**
     * Creates the handle of a new communicator and starts its bootstrap root in this process (NCCL's
     * {@code ncclGetUniqueId}). Call it on one rank (usually rank 0) and send {@link UniqueId#toBytes()} to the others.
     * The root listens on the interface chosen by {@code NCCL_SOCKET_IFNAME} (else the first non-loopback
     * interface that is up, else loopback) and stops once every rank has joined or its deadline passes.
     *
     * @return the handle
     */
    public static UniqueId uniqueId() {
        return BootstrapRoot.startNew();
    }

    /**
     * Opens a group on this thread; use it in try-with-resources.
     *
     * @return the group, to close when every call is recorded
     */
    public static Group group() {
        return new Group();
    }

    /** NCCL-style group start; prefer {@link #group()}. Must be paired with {@link #groupEnd()} on the same thread. */
    public static void groupStart() {
        GroupState.start();
    }

    /** NCCL-style group end: launches and waits for the calls recorded since the matching {@link #groupStart()}. */
    public static void groupEnd() {
        GroupState.end();
    }

    /**
     * The version string, e.g. {@code 0.1.0}.
     *
     * @return the version
     */
    public static String version() {
        return VERSION;
    }

    private static String buildVersion() {
        try (java.io.InputStream in = Jccl.class.getResourceAsStream("version.properties")) {
            java.util.Properties p = new java.util.Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown").replace("-SNAPSHOT", "");
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }
}
