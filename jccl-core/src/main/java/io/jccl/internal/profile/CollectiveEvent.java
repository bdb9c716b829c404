package io.jccl.internal.profile;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A JFR event per collective or point-to-point call (with {@link CallEvent}'s fields), from the call until this rank's
 * part completed; JDK Mission
 * Control shows them under JCCL. Created only while a recording runs ({@link JfrGate}).
 *
 * <p>Owned by: the calling thread until committed (async calls commit on the completing worker thread).
 */
@Name("io.jccl.Collective")
@Label("JCCL Collective")
@Category("JCCL")
@Description("One collective or point-to-point call on one rank, from the call to its completion")
@StackTrace(false)
final class CollectiveEvent extends CallEvent {
    @Label("Algorithm")
    public String algorithm;

    @Label("Protocol")
    public String protocol;

    @Label("Channels")
    public int nChannels;

    @Label("Peer")
    public int peer;

    @Label("Grouped")
    @Description("Recorded inside a group; the duration runs to the group's completion")
    public boolean grouped;

    @Label("Asynchronous")
    public boolean async;

    @Label("Error")
    public String error;
}
